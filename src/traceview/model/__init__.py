"""The trace model: header, columnar tables, diagnostics and errors. Imports nothing else."""

from traceview.model.errors import Diagnostic, NotATraceError, TraceError, TraceFormatError
from traceview.model.tables import (
    Action,
    EventTable,
    MethodTable,
    ThreadTable,
    thread_index_dtype,
)
from traceview.model.text import printable, terminal_bytes, terminal_text, visible
from traceview.model.trace import Clock, Header, Trace, Variant

__all__ = [
    "Action",
    "Clock",
    "Diagnostic",
    "EventTable",
    "Header",
    "MethodTable",
    "NotATraceError",
    "ThreadTable",
    "Trace",
    "TraceError",
    "TraceFormatError",
    "Variant",
    "printable",
    "terminal_bytes",
    "terminal_text",
    "thread_index_dtype",
    "visible",
]
