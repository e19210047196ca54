"""The Python API: a `Session` that also makes selections (`select`), its `Selection` steps and
their tables (numpy columns, `to_pandas()`/`to_arrow()` on call). The engine (`analysis`) knows
nothing of this front end: this room imports it, never the reverse (docs/tables.md)."""

from __future__ import annotations

from collections.abc import Sequence

from traceview.analysis.ask import Ask
from traceview.analysis.session import Session as _EngineSession
from traceview.api.selection import Selection
from traceview.api.table import Table

__all__ = ["Selection", "Session", "Table"]


class Session(_EngineSession):
    """The analysis session of one trace, plus the Python API's composable selections."""

    def select(
        self,
        thread: str | int | Sequence[str | int] | None = None,
        start: str | int | None = None,
        end: str | int | None = None,
        clock: str | None = None,
        my_code: str | Sequence[str] | None = None,
        methods: str | Sequence[str] | None = None,
    ) -> Selection:
        """A composable selection: threads by name or id, a time range from the trace's start
        (`"1.5s"` or int ns), a clock, "my code" packages, method patterns; narrow it further
        with its methods. The words resolve as every front end's (`Session.resolve`)."""
        threads = () if thread is None else [thread] if isinstance(thread, str | int) else thread
        words = Ask(
            threads=tuple(str(t) for t in threads),
            clock=clock,
            start=start,
            end=end,
            my_code=(my_code,) if isinstance(my_code, str) else tuple(my_code or ()),
        )
        resolved = self.resolve(words)
        sel = Selection(self, resolved.query, notes=resolved.notes)
        if methods:
            sel = sel.methods(*([methods] if isinstance(methods, str) else methods))
        return sel
