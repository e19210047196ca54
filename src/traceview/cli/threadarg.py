"""Turning `--thread NAME|ID` arguments into thread rows, shared by `stats` and `tree`."""

from __future__ import annotations

from traceview.model import Trace


class UnknownThread(ValueError):
    """A --thread value that names no thread of the trace."""


def thread_rows(trace: Trace, specs: list[str] | None) -> list[int] | None:
    """Thread rows for `specs` (names, or ids as decimal), None for "all threads".

    A name matches exactly (every thread of that name); a number matches an id first, then
    a name spelled that way. Raises UnknownThread naming the first value that matches nothing.
    """
    if not specs:
        return None
    rows: list[int] = []
    names = trace.threads.name
    for spec in specs:
        hits = [i for i, n in enumerate(names) if n == spec]
        if spec.lstrip("-").isdigit():
            row = trace.threads.row_of(int(spec))
            hits = [row] if row is not None else hits
        if not hits:
            raise UnknownThread(spec)
        rows.extend(h for h in hits if h not in rows)
    return rows
