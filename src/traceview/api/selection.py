"""`Selection`: the Python API's composable selection — threads, a time range, a clock, "my
code" packages and method patterns — as a small immutable value over a `Session` and its
`Query`.

    session.select(thread="main").range("1s", "2s").methods("com.example.*").profile()

Every step returns a new, narrower selection: threads and time ranges intersect with what is
already selected, method patterns add a condition. Threads, the range, the clock and "my
code" go into the `Query`; method
patterns choose which ROWS the tables show — they never change a number: a method's times
are those of the whole selection, the calls table keeps the calls of matching methods, the
edge table the edges whose caller or callee matches. (To measure only the time spent inside
some packages, fold the others away with `my_code`.) Each step's words resolve through
`Session.resolve(words, within=query)`: the rules are the spine's, the same as the CLI's and
the viewer's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from fnmatch import translate
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.ask import Ask, Time
from traceview.analysis.calltree import CallTree
from traceview.analysis.query import Query
from traceview.analysis.view import View
from traceview.api import tables as tb
from traceview.api.table import Table

if TYPE_CHECKING:
    from traceview.analysis.session import Session

Bools = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class Selection:
    """A session seen through a query plus method patterns (groups are ANDed, the patterns of
    one group ORed). Build one with `Session.select(...)`; narrow it with `thread`, `range`,
    `clock`, `my_code` and `methods`; read it with `profile`, `calls`, `threads`, `edges`,
    `method_table` (each a `Table` with `to_pandas()` / `to_arrow()`)."""

    session: Session
    query: Query
    patterns: tuple[tuple[str, ...], ...] = ()
    notes: tuple[str, ...] = ()

    # -- narrowing ----------------------------------------------------------------------------

    def thread(self, *specs: str | int) -> Selection:
        """Only these threads (names or ids; a shared name selects all its threads, noted in
        `notes`), intersected with the threads already selected."""
        if not specs:
            raise ValueError("thread() needs a name or id")
        return self._narrow(threads=tuple(str(s) for s in specs))

    def range(self, start: Time = None, end: Time = None) -> Selection:
        """Only [start, end) from the trace's start on the timeline clock (wall when recorded):
        `"1.5s"`, `"300ms"`, `"20us"` or int ns; None is the trace's start or end. Calls are
        clipped to it in every table; a second range intersects the first."""
        return self._narrow(start=start, end=end)

    def clock(self, clock: str) -> Selection:
        """Sort and lay out by `clock` ("cpu" or "wall"); tables carry both clocks anyway."""
        return self._narrow(clock=clock)

    def my_code(self, *prefixes: str) -> Selection:
        """Keep only frames of these packages (others fold into their caller), added to the
        packages already kept."""
        return self._narrow(my_code=prefixes)

    def methods(self, *patterns: str) -> Selection:
        """Only rows of methods matching one of these patterns: shell-style (`*`, `?`, `[..]`)
        over the dotted `class.method`, or over the label with its signature
        (`com.example.*`, `*.onCreate`, `*Adapter.bind* (I)V`). Numbers do not change."""
        if not patterns:
            raise ValueError("methods() needs a pattern")
        return replace(self, patterns=(*self.patterns, tuple(patterns)))

    def _narrow(self, **words: Any) -> Selection:
        resolved = self.session.resolve(Ask(**words), within=self.query)
        return replace(self, query=resolved.query, notes=(*self.notes, *resolved.notes))

    # -- reading ------------------------------------------------------------------------------

    @property
    def view(self) -> View:
        """The session and query as exporters take them (method patterns do not apply)."""
        return View(self.session, self.query)

    def profile(self) -> Table:
        """traceview's statistics, one row per method called, by decreasing inclusive time on
        the selection's clock (`tables.profile_table`)."""
        t = tb.profile_table(self.view)
        return t if not self.patterns else t.where(self.matching()[t["method"]])

    def calls(self) -> Table:
        """One row per call, clipped to the range (`tables.calls_table`)."""
        t = tb.calls_table(self.view)
        return t if not self.patterns else t.where(self.matching()[t["method"]])

    def edges(self) -> Table:
        """Caller -> callee aggregates per thread (`tables.edges_table`)."""
        t = tb.edges_table(self.view)
        if not self.patterns:
            return t
        hit = np.append(self.matching(), False)  # caller -1, (toplevel), indexes the False
        return t.where(hit[t["caller"]] | hit[t["callee"]])

    def threads(self) -> Table:
        """Every thread, with `selected` and its totals in the selection."""
        return tb.threads_table(self.view)

    def method_table(self) -> Table:
        """The methods (named as shown), only those matching the patterns."""
        t = tb.methods_table(self.view)
        return t if not self.patterns else t.where(self.matching())

    def top_down(self) -> CallTree:
        """The merged top-down call tree of the selection."""
        return self.session.top_down(self.query)

    def bottom_up(self) -> CallTree:
        """The merged bottom-up tree of the selection."""
        return self.session.bottom_up(self.query)

    def matching(self) -> Bools:
        """Per method row: True when it matches the method patterns (all True without)."""
        m = self.session.methods(self.query)
        out = np.ones(len(m), dtype=bool)
        for group in self.patterns:
            regex = re.compile("|".join(f"(?:{translate(p)})" for p in group), re.DOTALL)
            hit = [
                bool(regex.match(m.full_name(i).replace("/", ".")) or regex.match(m.label(i)))
                for i in range(len(m))  # one test per method, not per call
            ]
            out &= np.array(hit, dtype=bool)
        return out

    def __repr__(self) -> str:
        q = self.query
        th = self.session.trace.threads
        parts = [
            "threads="
            + ("all" if q.threads is None else ", ".join(th.label(t) for t in q.threads)),
            f"clock={q.clock}",
        ]
        if q.time_range is not None:
            lo = q.time_range.lo - self.session.origin
            hi = q.time_range.hi - self.session.origin
            parts.append(f"range={lo}..{hi} ns ({q.time_range.clock})")
        if q.my_code:
            parts.append(f"my_code={', '.join(q.my_code)}")
        for group in self.patterns:
            parts.append(f"methods={' | '.join(group)}")
        return f"Selection({'; '.join(parts)})"
