"""traceview: open every Android method trace and get traceview-exact numbers on both clocks.

`traceview.load(path | bytes | file)` returns a `Trace` (see `traceview.model`);
`traceview.Session(trace)` analyses it: `session.profile(session.query(...))`, trees, flame
graphs, the timeline (see `traceview.analysis`).

The names below are imported on first use, so a command imports only what it needs.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_WHERE = {
    "load": "traceview.readers",
    "Session": "traceview.analysis",
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
    "Session",
    "TimeRange",
    "Trace",
    "TraceError",
    "TraceFormatError",
    "View",
    "__version__",
    "load",
]

if TYPE_CHECKING:
    from traceview.analysis import Query, Session, TimeRange, View
    from traceview.model import Diagnostic, NotATraceError, Trace, TraceError, TraceFormatError
    from traceview.readers import load


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'traceview' has no attribute {name!r}")
