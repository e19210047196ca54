"""traceview: open every Android method trace and get traceview-exact numbers on both clocks.

`traceview.load(path | bytes | file)` returns a `Trace` (see `traceview.model`);
`traceview.Session(trace)` analyses it: `session.profile(session.query(...))`, trees, flame
graphs, the timeline (see `traceview.analysis`). `traceview.session(path)` does both;
`session.select(thread="main").range("1s", "2s").profile()` is a table with `to_pandas()`.

The names below are imported on first use, so a command imports only what it needs.
"""

from __future__ import annotations

from importlib import import_module
from os import PathLike
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_WHERE = {
    "load": "traceview.readers",
    "Session": "traceview.api",
    "Selection": "traceview.api",
    "Table": "traceview.api",
    "methods_table": "traceview.api.compare",
    "paths_table": "traceview.api.compare",
    "Query": "traceview.analysis",
    "TimeRange": "traceview.analysis",
    "View": "traceview.analysis",
    "Trace": "traceview.model",
    "Diagnostic": "traceview.model",
    "TraceError": "traceview.model",
    "TraceFormatError": "traceview.model",
    "NotATraceError": "traceview.model",
}

__all__ = [
    "Diagnostic",
    "NotATraceError",
    "Query",
    "Selection",
    "Session",
    "Table",
    "TimeRange",
    "Trace",
    "TraceError",
    "TraceFormatError",
    "View",
    "__version__",
    "compare",
    "load",
    "methods_table",
    "paths_table",
    "session",
]

if TYPE_CHECKING:
    from collections.abc import Sequence

    from traceview.analysis import Query, TimeRange, View
    from traceview.analysis.compare import Comparison
    from traceview.analysis.diff import Thresholds
    from traceview.api import Selection, Session, Table
    from traceview.api.compare import Source, methods_table, paths_table
    from traceview.model import Diagnostic, NotATraceError, Trace, TraceError, TraceFormatError
    from traceview.readers import load


def session(source: str | PathLike[str] | bytes | Trace) -> Session:
    """Load a trace (a path, bytes, or an already loaded `Trace`) and start its analysis
    session: `traceview.session("app.trace").select(thread="main").profile()`."""
    from traceview.api import Session
    from traceview.model import Trace
    from traceview.readers import load

    return Session(source if isinstance(source, Trace) else load(source))


def compare(
    baseline: Source | Sequence[Source],
    candidate: Source | Sequence[Source],
    thresholds: Thresholds | None = None,
    **selection: Any,
) -> Comparison:
    """Compare runs (paths, bytes, traces, selections; one or a sequence per side), each
    opened, selected with the same words on both sides (`thread`, `start`, `end`, `clock`,
    `my_code`) and summarised in turn: `traceview.compare(["a1.trace", "a2.trace"],
    ["b1.trace", "b2.trace"], thread="main").paths` (docs/diff.md)."""
    from traceview.api.compare import compare as compare_runs
    from traceview.readers import load

    return compare_runs(baseline, candidate, thresholds, load=load, **selection)


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'traceview' has no attribute {name!r}")
