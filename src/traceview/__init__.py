"""traceview: open every Android method trace and get traceview-exact numbers on both clocks.

`traceview.load(path | bytes | file)` returns a `Trace` (see `traceview.model`).
"""

from traceview.model import (
    Diagnostic,
    NotATraceError,
    Trace,
    TraceError,
    TraceFormatError,
)
from traceview.readers import load

__version__ = "0.1.0"

__all__ = [
    "Diagnostic",
    "NotATraceError",
    "Trace",
    "TraceError",
    "TraceFormatError",
    "__version__",
    "load",
]
