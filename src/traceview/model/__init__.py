"""The trace model: header, columnar tables, diagnostics and errors. Imports nothing else."""

from traceview.model.dumps import ProcessDump
from traceview.model.errors import Diagnostic, NotATraceError, TraceError, TraceFormatError
from traceview.model.tables import (
    Action,
    EventTable,
    MethodTable,
    ThreadTable,
    method_dtype,
    thread_index_dtype,
)
from traceview.model.text import printable, terminal_bytes, terminal_text, visible
from traceview.model.trace import Axis, Clock, Header, Trace, Variant

__all__ = [
    "Action",
    "Axis",
    "Clock",
    "Diagnostic",
    "EventTable",
    "Header",
    "MethodTable",
    "NotATraceError",
    "ProcessDump",
    "ThreadTable",
    "Trace",
    "TraceError",
    "TraceFormatError",
    "Variant",
    "method_dtype",
    "printable",
    "terminal_bytes",
    "terminal_text",
    "thread_index_dtype",
    "visible",
]
