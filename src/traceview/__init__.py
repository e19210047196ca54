"""traceview: open every Android method trace and get traceview-exact numbers on both clocks.

`traceview.load(path | bytes | file)` returns a `Trace` (see `traceview.model`);
`traceview.calls(trace)` its call table and `traceview.profile(trace, threads=, clock=,
time_range=)` its statistics (see `traceview.analysis`).
"""

from traceview.analysis import calls_of as calls
from traceview.analysis import profile_of as profile
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
    "calls",
    "load",
    "profile",
]
