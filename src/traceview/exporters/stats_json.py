"""The `stats-json` format: `traceview stats --json`, the selection, its threads and the method
rows of `exporters.stats` as one JSON object (shape in docs/json.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Any

from traceview.analysis.view import View
from traceview.exporters.jsonshape import diagnostics_json, dumps, selection_json, threads_json
from traceview.exporters.stats import rows
from traceview.model import visible

NAME = "stats-json"
SUFFIXES = (".json",)
BINARY = False
SUBJECT = "view"


@dataclass(frozen=True)
class Options:
    """`sort`: a `stats.COLUMNS` name (default: inclusive time on the query's clock);
    `limit`: at most this many methods (default all)."""

    sort: str | None = None
    limit: int | None = None


def export(view: View, out: IO[Any], options: Options) -> None:
    """`stats --json`: selection, threads, methods, diagnostics."""
    prof = view.profile()
    doc = {
        "file": visible(view.trace.source) if view.trace.source else None,
        "clocks": list(prof.clocks),
        "selection": selection_json(view),
        "threads": threads_json(view, prof),
        "methods": rows(view, options.sort, options.limit),
        "estimates": prof.estimates,
        "diagnostics": diagnostics_json(view.diagnostics()),
    }
    out.write(dumps(doc) + "\n")
