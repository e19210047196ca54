"""`View`: one session seen through one query — what an exporter renders.

Exporters (`traceview.exporters`) take a `View` and ask it for the derived data they need;
every number comes from the session, so a file, the terminal and the viewer agree.
"""

from __future__ import annotations

from dataclasses import dataclass

from traceview.analysis.calltree import CallTree
from traceview.analysis.layout.flame import FlameLayout
from traceview.analysis.profile import Profile
from traceview.analysis.query import Query
from traceview.analysis.session import Session
from traceview.model import Diagnostic, MethodTable, Trace


@dataclass(frozen=True)
class View:
    """A session and a query (`session.query(...)` made it, so its defaults are resolved)."""

    session: Session
    query: Query

    @property
    def trace(self) -> Trace:
        """The trace analysed."""
        return self.session.trace

    @property
    def methods(self) -> MethodTable:
        """The method names to show (renamed when the query has a renaming)."""
        return self.session.methods(self.query)

    def profile(self) -> Profile:
        """traceview's statistics of the selection."""
        return self.session.profile(self.query)

    def top_down(self) -> CallTree:
        """The merged top-down tree of the selection."""
        return self.session.top_down(self.query)

    def bottom_up(self) -> CallTree:
        """The merged bottom-up tree of the selection."""
        return self.session.bottom_up(self.query)

    def flame(self, kind: str = "graph") -> FlameLayout:
        """The selection laid out as a flame graph (or top-down / bottom-up chart)."""
        return self.session.flame(self.query, kind)

    def diagnostics(self) -> list[Diagnostic]:
        """Every repair of the reader and the engine."""
        return self.session.diagnostics()
