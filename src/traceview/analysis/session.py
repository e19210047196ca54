"""`Session`: one analysed trace — its call table, caches and every view a front end shows.

A session answers views for a `Query` (analysis/query.py): `profile(q)`, `top_down(q)`,
`bottom_up(q)`, `flame(q, kind)`, `timeline()`, `frames(budget)`, `thread_totals(q)`. The CLI,
the exporters, the viewer and the service differ only in where the query comes from and where
the view goes. The rules that every front end shares live here once: the main thread, the
time origin, what a thread name or id selects, and (in analysis/ranges.py) what a time range
keeps: every call clipped to the range on the range's clock, so all views agree.

Views are cached per query (a small LRU, built once even when two requests ask at the same
time); the call table is built on first need — a whole-trace profile is computed without one
(`analysis.direct`), which is all `traceview -r`, `stats` and `info` need.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from traceview.analysis import filters
from traceview.analysis.axis import AXIS, AxisEvents, with_axis
from traceview.analysis.calls import CallTable, build_calls, thread_sizes
from traceview.analysis.calltree import CallTree, invert, top_down
from traceview.analysis.direct import direct_profile
from traceview.analysis.layout.budget import FrameCalls, frame_calls
from traceview.analysis.layout.flame import FlameLayout, layout
from traceview.analysis.layout.timeline import Timeline, load_kernels
from traceview.analysis.mycode import keep_packages
from traceview.analysis.profile import Profile, profile
from traceview.analysis.query import (
    Clock,
    Query,
    RangeClock,
    Rename,
    TimeRange,
    clocks_of,
    default_clock,
    normalise_prefixes,
    range_clock,
)
from traceview.analysis.ranges import cut_thread
from traceview.analysis.threads import ThreadPick, pick_threads
from traceview.model import Diagnostic, MethodTable, Trace

I64 = npt.NDArray[np.int64]
T = TypeVar("T")
CACHE_VIEWS = 8  # per kind of view: profiles, trees, filtered tables


class Session:
    """A trace plus everything derived from it that is worth keeping between views."""

    def __init__(self, trace: Trace, calls: CallTable | None = None) -> None:
        if range_clock(trace) == "cpu" and len(trace.events):
            # no wall clock: the events also carry the axis reconstructed from their order,
            # the timeline's axis and the clock of time ranges (analysis/axis.py)
            trace = replace(trace, events=with_axis(trace.events))
            if calls is not None:
                calls = replace(calls, trace=trace)  # the same rows, read through the axis
        self.trace = trace
        self.clocks: tuple[Clock, ...] = clocks_of(trace)
        self.default_clock: Clock = default_clock(trace)
        self.timeline_clock: Clock = range_clock(trace)
        ev = trace.events
        self.thread_records: I64 = thread_sizes(ev.thread, len(trace.threads))
        # the timeline's axis and the clock of ranges: wall, else reconstructed ("axis")
        self.axis_clock: RangeClock = AXIS if isinstance(ev, AxisEvents) else self.timeline_clock
        self._span: tuple[int, int] | None = None
        self.lock = threading.RLock()
        self._calls = calls
        self._gates: dict[tuple[int, Any], threading.Lock] = {}
        self._profiles: OrderedDict[Any, Profile] = OrderedDict()
        self._trees: OrderedDict[Any, CallTree] = OrderedDict()
        self._filters: OrderedDict[Any, CallTable] = OrderedDict()
        self._names: OrderedDict[Any, MethodTable] = OrderedDict()
        self._timeline: Timeline | None = None
        self._excl: dict[str, I64] = {}
        self.timings: dict[str, float] = {}  # seconds per engine phase (direct profile)

    # -- what every front end shares ---------------------------------------------------------

    @property
    def calls(self) -> CallTable:
        """The call table of the whole trace (built on first use, then kept)."""
        with self.lock:
            if self._calls is None:
                self._calls = build_calls(self.trace)
            return self._calls

    @property
    def has_calls(self) -> bool:
        """True once the call table is built."""
        return self._calls is not None

    def diagnostics(self) -> list[Diagnostic]:
        """Every repair: the reader's, then the engine's (exit without enter, calls open at the
        end, forced exits, unrolls), each with a code and a count."""
        if self._calls is not None:
            engine = self._calls.diagnostics
        else:
            engine = self.profile(self.query()).diagnostics
        return [*self.trace.diagnostics, *engine]

    def main_thread(self) -> int:
        """The main thread's row, among threads with records: named "main", else id == the
        header's pid, else id 1, else the one with the most records (lowest row on ties)."""
        th = self.trace.threads
        alive = self.thread_records > 0
        for row, name in enumerate(th.name):
            if name == "main" and alive[row]:
                return row
        for wanted in (self.trace.header.pid, 1):
            if wanted is not None:
                rows = np.flatnonzero((th.id == int(wanted)) & alive)
                if len(rows):
                    return int(rows[0])
        return int(np.argmax(self.thread_records)) if len(th) else 0

    def pick_threads(self, specs: Sequence[str]) -> ThreadPick:
        """Thread rows for names or ids (analysis/threads.py: a shared name selects all of
        its threads and says so; an unknown one raises with close matches)."""
        return pick_threads(self.trace.threads, specs)

    def query(
        self,
        threads: Iterable[int] | None = None,
        clock: str | None = None,
        time_range: TimeRange | None = None,
        my_code: str | Sequence[str] | None = None,
        rename: Rename | None = None,
    ) -> Query:
        """A checked `Query` with the defaults filled in; ValueError names a bad value."""
        c = clock or self.default_clock
        if c not in self.clocks:
            raise ValueError(f"this trace has no {c} clock (it has: {', '.join(self.clocks)})")
        rows: tuple[int, ...] | None = None
        if threads is not None:
            rows = tuple(sorted({int(t) for t in threads}))
            bad = [r for r in rows if not 0 <= r < len(self.trace.threads)]
            if bad:
                raise ValueError(
                    f"no thread row {bad[0]} (the trace has {len(self.trace.threads)})"
                )
            if len(rows) == len(self.trace.threads):
                rows = None
        if time_range is not None and time_range.clock not in (*self.clocks, self.axis_clock):
            raise ValueError(f"this trace has no {time_range.clock} clock for a time range")
        return Query(rows, c, time_range, normalise_prefixes(my_code), rename)

    @property
    def origin(self) -> int:
        """Where the trace starts on the timeline's axis (ns)."""
        return self.span[0]

    @property
    def end(self) -> int:
        """Where the trace ends on the timeline's axis (ns)."""
        return self.span[1]

    @property
    def span(self) -> tuple[int, int]:
        """(origin, end) ns on the timeline's axis; a reconstructed axis is computed on first
        use, so a command that never places anything on it never pays for it."""
        if self._span is None:
            ev = self.trace.events
            times = ev.time(self.axis_clock) if len(ev) else np.zeros(1, dtype=np.int64)
            # each thread's times rise: min/max are its ends
            self._span = (int(times.min()), int(times.max()))
        return self._span

    @property
    def reconstructed(self) -> bool:
        """True when the timeline axis is reconstructed from record order (no wall clock)."""
        return self.axis_clock == AXIS

    def placed(self, rows: npt.NDArray[np.signedinteger[Any]]) -> tuple[I64, I64]:
        """Start and end ns of call rows on the timeline's axis (`axis_clock`)."""
        return self.calls.start(self.axis_clock, rows), self.calls.end(self.axis_clock, rows)

    def thread_axis_span(self, t: int) -> tuple[int, int]:
        """(first, last) ns of thread row `t` on the timeline's axis; (0, 0) without events."""
        return self.calls.thread_span(t, self.axis_clock)

    def time_range(self, start_ns: int | None, end_ns: int | None) -> TimeRange | None:
        """A range given relative to the trace's start on the timeline's axis (wall, or the
        axis reconstructed from record order; None ends are the trace's ends; both None: the
        whole trace, None)."""
        if start_ns is None and end_ns is None:
            return None
        lo = self.origin + (start_ns or 0)
        hi = self.end if end_ns is None else self.origin + end_ns
        return TimeRange(lo, max(hi, lo) if end_ns is None else hi, self.axis_clock)

    def methods(self, q: Query | None = None) -> MethodTable:
        """The method table as the query shows it (renamed when the query has a renaming)."""
        rename = q.rename if q is not None else None
        if rename is None:
            return self.trace.methods
        return self._memo(self._names, rename, lambda: rename.methods(self.trace.methods))

    # -- views -------------------------------------------------------------------------------

    def profile(self, q: Query) -> Profile:
        """traceview's statistics of the selection, both clocks (calls clipped to the range)."""

        def build() -> Profile:
            whole = q.threads is None and q.time_range is None and not q.my_code
            if whole and self._calls is None:
                return direct_profile(self.trace, timings=self.timings)
            tr = q.time_range
            rng = (tr.lo, tr.hi) if tr is not None else None
            rc = tr.clock if tr is not None else None
            return profile(self.filtered(q), threads=q.threads, time_range=rng, range_clock=rc)

        return self._memo(self._profiles, self._key(q), build)

    def top_down(self, q: Query) -> CallTree:
        """Calls merged by path from the root; with a range each call counts its clipped time
        (exclusive = clipped inclusive - the children's clipped inclusive)."""

        def build() -> CallTree:
            calls, tr = self.filtered(q), q.time_range
            if tr is None:
                return top_down(calls, q.threads)
            rows = range(len(calls.thread_ranges)) if q.threads is None else q.threads
            cuts = [cut_thread(calls, t, calls.clocks, tr.clock, (tr.lo, tr.hi)) for t in rows]
            return top_down(calls, cuts=cuts)

        return self._memo(self._trees, (*self._key(q), "top"), build)

    def bottom_up(self, q: Query) -> CallTree:
        """Exclusive time by method, then by caller path (the inverted top-down tree)."""
        return self._memo(self._trees, (*self._key(q), "bottom"), lambda: invert(self.top_down(q)))

    def flame(self, q: Query, kind: str = "graph") -> FlameLayout:
        """The merged tree laid out as a flame graph ("graph"), top-down or bottom-up chart."""
        tree = self.bottom_up(q) if kind == "bottomup" else self.top_down(q)
        return layout(tree, kind, q.clock, methods=self.methods(q))

    def thread_totals(self, q: Query) -> dict[str, I64]:
        """Per selected thread (in `profile(q).threads` order): its time on each clock, clipped
        to the range (traceview's 100 %)."""
        return self.profile(q).thread_total

    def timeline(self) -> Timeline:
        """The level-of-detail index of every thread on the timeline axis (the call chart):
        the wall clock, or the axis reconstructed from record order (`axis_clock`)."""
        with self.lock:
            if self._timeline is None:
                calls = self.calls
                self._timeline = Timeline(
                    calls,
                    calls.trace.events.time(self.axis_clock),
                    self.origin,
                    self.end,
                )
            return self._timeline

    def frames(self, budget_ns: int, thread: int | None = None) -> FrameCalls:
        """Frame calls of the main thread (or `thread`) over `budget_ns` on the timeline clock."""
        t = self.main_thread() if thread is None else thread
        return frame_calls(self.calls, t, budget_ns, self.timeline_clock)

    def excl(self, clock: str, build: bool = True) -> I64 | None:
        """Exclusive ns of every call of the whole table on `clock` (kept; None when not built
        yet and not `build`)."""
        with self.lock:
            hit = self._excl.get(clock)
        if hit is None and build:
            hit = self.calls.excl(clock)
            with self.lock:
                self._excl[clock] = hit
        return hit

    def warm(self) -> None:
        """Build what a viewer's first screen asks for (run in the background after start):
        the default profile (method colours, the table), the timeline index and its first
        levels of every thread (the first paint waits for them), then their other levels,
        the default flame graph; two threads at a time, so that the warm-up is over before
        the first clicks (a tile or a range answered while it runs competes for the cores:
        at 70M records p95 ~80 ms during it, ~10-40 ms after). Not `excl` (two int64 columns
        per call, 530 MB at 70M records): a call look-up computes its subtree's. The
        timeline's compiled passes load meanwhile on a thread of their own."""
        threading.Thread(target=load_kernels, name="traceview-kernels", daemon=True).start()
        self.profile(self.query())
        tl = self.timeline()
        tl.prepare_all(3)
        tl.prepare_all()
        self.top_down(self.query())

    # -- the selection -----------------------------------------------------------------------

    def filtered(self, q: Query) -> CallTable:
        """The call table with only the query's "my code" frames (all calls when none)."""
        if not q.my_code:
            return self.calls
        key = (q.my_code, q.rename)
        return self._memo(
            self._filters, key, lambda: keep_packages(self.calls, q.my_code, self.methods(q))
        )

    def selection(self, q: Query) -> CallTable:
        """The calls a query looks at as a table: "my code" folded, then, for a time range, cut
        to the calls of the selected threads near it (`ranges.near`), for the tables of calls
        and edges. The profile and the trees take a range without a table
        (`ranges.cut_thread`)."""
        calls = self.filtered(q)
        if q.time_range is None:
            return calls
        return filters.window(calls, q.threads, q.time_range)

    def _key(self, q: Query) -> tuple[Any, ...]:
        """What a cached view depends on: the clock only orders and lays out, and a renaming
        only names methods, unless "my code" matches packages by the renamed names."""
        return (q.threads, q.time_range, q.my_code, q.rename if q.my_code else None)

    def _memo(self, store: OrderedDict[Any, T], key: Any, build: Callable[[], T]) -> T:
        """`store[key]`, built once: a second request for a key being built waits for it
        (the background warm-up and the first click ask for the same tree)."""
        with self.lock:
            hit = store.get(key)
            if hit is not None:
                store.move_to_end(key)
                return hit
            gate = self._gates.setdefault((id(store), key), threading.Lock())
        with gate:
            with self.lock:
                hit = store.get(key)
            if hit is not None:
                return hit
            value = build()
            with self.lock:
                store[key] = value
                while len(store) > CACHE_VIEWS:
                    store.popitem(last=False)
                self._gates.pop((id(store), key), None)
        return value
