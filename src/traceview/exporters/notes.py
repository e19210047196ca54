"""The diagnostics as the terminal outputs end them: one `note: CODE (COUNT)` line each."""

from __future__ import annotations

from collections.abc import Iterable

from traceview.model import Diagnostic


def note_lines(diagnostics: Iterable[Diagnostic]) -> str:
    """`note: code (count)` per diagnostic, newline-terminated ("" when there are none)."""
    lines = [
        f"note: {d.code}" + (f" ({d.count})" if d.count is not None else "") for d in diagnostics
    ]
    return "".join(line + "\n" for line in lines)
