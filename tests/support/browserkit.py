"""Shared helpers of the browser tests: the real viewer server in a thread, one headless
Chromium per test session (Playwright), console-error capture and screenshots.

Tests import the fixture `browser` and the helpers `serving()` / `open_page()` (which collects
console errors), `make_report()` and the table readers; everything skips cleanly when
Playwright or /usr/bin/chromium is missing.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import importlib.util
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import traceview

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

_shared: dict[str, Any] = {}


def _stop_browser() -> None:
    browser = _shared.pop("browser", None)
    pw = _shared.pop("pw", None)
    with contextlib.suppress(Exception):
        if browser is not None:
            browser.close()
    with contextlib.suppress(Exception):
        if pw is not None:
            pw.stop()


def shared_browser() -> Any:
    """The one Chromium of this test session (launched on first use, closed at exit)."""
    if importlib.util.find_spec("playwright") is None:
        pytest.skip("playwright is not installed")
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is not installed")
    if "browser" not in _shared:
        from playwright.sync_api import sync_playwright

        pw = sync_playwright().start()
        _shared["pw"] = pw
        _shared["browser"] = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        atexit.register(_stop_browser)
    return _shared["browser"]


@pytest.fixture
def browser() -> Any:
    """The session's Chromium."""
    return shared_browser()


class Viewer:
    """A served trace: `url` of the live viewer; `stop()` shuts the server down."""

    def __init__(self, server: Any, thread: threading.Thread, url: str) -> None:
        self.server = server
        self.thread = thread
        self.url = url

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def serve(trace_path: Path, rename: Any = None) -> Viewer:
    """Start the real viewer (`traceview.viewer.app`) on `trace_path`, 127.0.0.1, a free port;
    `rename` is the app's default renaming (`traceview view --mapping`)."""
    from traceview.analysis.session import Session
    from traceview.viewer.app import create_app

    return start_app(create_app(Session(traceview.load(str(trace_path))), rename=rename))


def start_app(app: Any) -> Viewer:
    """Serve an ASGI app (the viewer, the service) with uvicorn on 127.0.0.1, a free port, in a
    thread; return once it listens."""
    import uvicorn

    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(1000):  # a start-up wait (up to ~20 s), not a speed check
        if server.started or not thread.is_alive():
            break
        time.sleep(0.02)
    if not server.started:
        raise RuntimeError("the server did not start")
    port = server.servers[0].sockets[0].getsockname()[1]
    return Viewer(server, thread, f"http://127.0.0.1:{port}/")


@contextlib.contextmanager
def serving(trace_path: Path, rename: Any = None) -> Iterator[Viewer]:
    """`serve()` as a context manager."""
    viewer = serve(trace_path, rename)
    try:
        yield viewer
    finally:
        viewer.stop()


def open_page(browser: Any, url: str, errors: list[str], **kw: Any) -> Any:
    """A new page on `url`, waiting until the viewer says it is ready; errors are collected.

    Playwright's `wait_for_function` polls with `eval`, which the viewer's CSP forbids, so
    pages bypass the CSP unless `bypass_csp=False` (tests/viewer/test_browser_security.py loads
    the viewer under its real CSP)."""
    kw.setdefault("bypass_csp", True)
    page = browser.new_page(viewport={"width": 1400, "height": 900}, **kw)
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    page.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
    page.goto(url)
    page.wait_for_selector("body[data-ready]", state="attached", timeout=20000)
    return page


def shot(page: Any, name: str) -> Path:
    """Save a screenshot under artifacts/screenshots/ (git-ignored) and return its path."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def table_names(page: Any) -> list[str]:
    """The method names of the profile table's rendered method rows, top to bottom (whole, as
    `data-full` holds them where the row shows them elided)."""
    names: list[str] = page.eval_on_selector_all(
        "#tab-profile .pt-row.method",
        """rows => rows
            .map(r => [parseFloat(r.style.top), r.querySelector('.pt-name')])
            .sort((a, b) => a[0] - b[0])
            .map(([, n]) => n.querySelector('.lbl').dataset.full
                ?? Array.from(n.childNodes).slice(3).map(c => c.textContent).join(''))""",
    )
    return names


def table_cells(page: Any, row: int) -> list[str]:
    """The cell texts of the `row`-th rendered method row of the profile table."""
    cells: list[str] = page.eval_on_selector_all(
        "#tab-profile .pt-row.method",
        f"""rows => rows.sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top))[{row}]
            ? Array.from(rows[{row}].children).map(c => c.textContent) : []""",
    )
    return cells


def fetch_json(viewer: Viewer, path: str) -> Any:
    """One API answer straight from the server (to compare with what the page shows)."""
    import httpx

    return httpx.get(viewer.url.rstrip("/") + path, timeout=30).json()


@functools.cache
def engine_ranking(trace_path: Path, clock: str) -> list[tuple[int, int]]:
    """(method row, inclusive ns) of every method with inclusive time on `clock`, most first,
    straight from the engine (`traceview.analysis.profile`), ties by method row."""
    from traceview.analysis.calls import build_calls
    from traceview.analysis.profile import profile
    from traceview.readers import load

    trace = load(trace_path)
    trace.validate()
    prof = profile(build_calls(trace), clock=clock)
    incl = prof.incl[clock]
    rows = [(int(m), int(v)) for m, v in enumerate(incl) if v]
    rows.sort(key=lambda r: (-r[1], r[0]))
    return rows


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
    import base64
    import gzip
    import json
    import re

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
