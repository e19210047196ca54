"""What a self-contained HTML report holds: `make_report()` writes one with `traceview
report`, `report_entries()` / `report_answers()` unpack its data block, and `request_key()` /
`keyed()` name its answers the way the UI does (docs/web-api.md "Report packaging")."""

from __future__ import annotations

import base64
import gzip
import json
import re
from pathlib import Path
from typing import Any


def request_key(path: str, params: dict[str, Any]) -> str:
    """The key the UI names a request by: an oracle of `keyOf` in static/lib/api.js (path, then
    `?name=value&...` sorted by name, empty values left out; docs/web-api.md)."""
    items = sorted((k, _js_string(v)) for k, v in params.items() if v not in (None, ""))
    return path + ("?" + "&".join(f"{k}={v}" for k, v in items) if items else "")


def _js_string(value: Any) -> str:
    """`String(value)` in JavaScript for the values a request holds (ints, strings)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def keyed(entries: list[Any]) -> dict[str, Any]:
    """A report's `[path, params, answer]` entries by request key (the page's index)."""
    return {request_key(path, params): answer for path, params, answer in entries}


def report_entries(page: str) -> list[Any]:
    """The entries a report page holds (its gzip+base64 `traceview-data` block), as packed."""
    m = re.search(
        r'<script type="application/gzip" id="traceview-data" data-encoding="gzip\+base64">'
        r"([A-Za-z0-9+/=]*)</script>",
        page,
    )
    assert m is not None, "no traceview-data block"
    entries: list[Any] = json.loads(gzip.decompress(base64.b64decode(m.group(1))))
    return entries


def report_answers(page: str) -> dict[str, Any]:
    """The answers a report page holds by request key, with the timeline tiles restored as the
    UI restores them (docs/web-api.md "Report packaging")."""
    data = keyed(report_entries(page))
    for key, tile in data.items():
        if key.startswith("/api/timeline") and tile.pop("packed", False):
            r = tile["rects"]
            call = start = 0
            for i in range(len(r["call"])):
                call += r["call"][i]
                start += r["start"][i]
                r["call"][i] = call
                r["end"][i] = (start + r["end"][i]) / 1000
                r["start"][i] = start / 1000
    return data


def make_report(trace_path: Path, out: Path, budget_mb: float = 2) -> Path:
    """Write the self-contained HTML report of `trace_path` with `traceview report` (a small
    tile budget keeps the tests quick)."""
    from traceview.cli import main

    assert main(["report", str(trace_path), "-o", str(out), "--budget-mb", str(budget_mb)]) == 0
    return out
