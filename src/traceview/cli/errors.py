"""The one place a failure becomes the one line a user sees (`cli/__init__.py` prints it).

Format errors say the file and the byte offset (`TraceFormatError.line()`); OS errors name the
file; running out of memory says so; paths and names are escaped (`model.text.printable`) so a
file name with a newline or terminal escapes cannot split or forge the line.
"""

from __future__ import annotations

from traceview.cli.options import CliError
from traceview.model import TraceError, printable


def one_line(exc: BaseException) -> str | None:
    """The one-line message for `exc`, or None for a bug (which keeps its traceback)."""
    if isinstance(exc, CliError):
        return str(exc)
    if isinstance(exc, TraceError):
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return printable(text)
    if isinstance(exc, MemoryError):
        return "out of memory while analysing the trace (try a time range or fewer threads)"
    if isinstance(exc, OSError):
        name = getattr(exc, "filename", None)
        where = f"{printable(str(name))}: " if name else ""
        return f"{where}{printable(exc.strerror or str(exc))}"
    return None
