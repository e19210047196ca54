"""`Session`: one analysed trace — its call table, caches and every view a front end shows.

A session turns a user's words (`Ask`, analysis/ask.py) into a `Query` (analysis/query.py) with
`resolve(ask)` and answers views for it: `profile(q)`, `top_down(q)`, `bottom_up(q)`,
`flame(q, kind)`, `timeline()`, `frames(budget)`, `thread_totals(q)`. The CLI, the exporters,
the viewer and the service differ only in where the words come from and where the view goes.
The rules that every front end shares live here once: the main thread, the time origin, what a
thread name or id selects, and (in analysis/ranges.py) what a time range keeps: every call
clipped to the range on the range's clock, so all views agree.

Views are cached per query (`memo`: a small LRU per kind, built once even when two requests
ask at the same time); the call table is built on first need — a whole-trace profile is
computed without one (`analysis.direct`), which is all `traceview -r`, `stats` and `info` need.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import replace
from functools import cached_property
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from traceview.analysis import filters
from traceview.analysis.ask import Ask, Resolved, offset_ns
from traceview.analysis.axis import AXIS, AxisEvents, with_axis
from traceview.analysis.calls import CallTable, build_calls, thread_sizes
from traceview.analysis.calltree import CallTree, invert, top_down
from traceview.analysis.direct import direct_profile
from traceview.analysis.layout.budget import FrameCalls, frame_calls
from traceview.analysis.layout.flame import KINDS, FlameLayout, layout
from traceview.analysis.layout.timeline import Timeline
from traceview.analysis.memo import Memo
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
from traceview.analysis.timebase import TIME_BASES, TimeBase, monotonic_shift, no_anchor
from traceview.analysis.timecols import TimeColumns
from traceview.analysis.warmup import Gate, warm
from traceview.model import Diagnostic, MethodTable, Trace

I64 = npt.NDArray[np.int64]
T = TypeVar("T")
CACHE_VIEWS = 8  # per kind of view: profiles, trees, filtered tables, a room's own numbers


class Session:
    """A trace plus everything derived from it that is worth keeping between views."""

    def __init__(
        self, trace: Trace, calls: CallTable | None = None, whole: Profile | None = None
    ) -> None:
        """`whole`: the profile of the whole trace, when it was computed as the trace was read
        (a trace whose records were not kept: analysis/streamed.py)."""
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
        # the timeline's axis and the clock of ranges: wall, else reconstructed ("axis")
        self.axis_clock: RangeClock = AXIS if isinstance(ev, AxisEvents) else self.timeline_clock
        # no times at all (an Android 16 all-methods dump): the wall column counts the calls
        # entered (model.trace.Header), so spans are call counts; every duration shown is absent
        self.timeless: bool = trace.header.axis == "order"
        self._span: tuple[int, int] | None = None
        self.lock = threading.RLock()
        self._calls = calls
        self._cache = Memo(CACHE_VIEWS)
        self._timeline: Timeline | None = None
        self._excl: dict[str, I64] = {}
        self.gate = Gate()  # the requests being answered: background work waits for none
        self.before_kernels: Callable[[], object] = lambda: None  # see `warm`
        self.timings: dict[str, float] = {}  # seconds per engine phase (direct profile)
        self._whole = whole

    # -- what every front end shares ---------------------------------------------------------

    @cached_property
    def thread_records(self) -> I64:
        """Records per thread row (counted on first use: the one-shot reports never ask; the
        call table's pairing counted them when it is built)."""
        counted = self._calls.thread_records if self._calls is not None else None
        if counted is not None:
            return counted
        return thread_sizes(self.trace.events.thread, len(self.trace.threads))

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

    def release_records(self) -> None:
        """Build the call table, then keep only the events' time columns
        (analysis/timecols.py): the table says what the thread, method and action columns
        said. For a session that lives on (the viewer), at 7 bytes a record; the whole-trace
        profile is then the table's, and record-level outputs (dmtracedump's, `dump`) cannot
        be made from this session any more."""
        with self.lock:
            calls = self.calls
            if isinstance(self.trace.events, TimeColumns):
                return
            _ = self.thread_records  # counted while the thread column is there
            trace = replace(self.trace, events=TimeColumns(self.trace.events))
            # each thread's first and last record stay known (found from the thread column)
            self._calls = replace(calls, trace=trace, thread_events=calls._thread_events)
            self.trace = trace

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
        time: str | None = None,
    ) -> Query:
        """A checked `Query` with the defaults filled in; ValueError names a bad value (a
        time base "monotonic" for a trace without a CLOCK_MONOTONIC anchor, with the reason)."""
        base = self.time_base(time)
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
        return Query(rows, c, time_range, normalise_prefixes(my_code), rename, base)

    def time_base(self, time: str | None) -> TimeBase:
        """`time` checked ("trace" or "monotonic"; None is "trace"): ValueError for another
        word, or for "monotonic" when the trace gives no anchor (`no_anchor` says why)."""
        for base in TIME_BASES:
            if (time or "trace") == base:
                if base == "monotonic" and self.monotonic_shift is None:
                    raise ValueError(no_anchor(self.trace, self.axis_clock))
                return base
        raise ValueError(f"time base must be trace or monotonic, not {time!r}")

    @property
    def monotonic_shift(self) -> int | None:
        """What to add to a time on the timeline's axis (ns) to read it on CLOCK_MONOTONIC;
        None when the trace gives no anchor (analysis/timebase.py)."""
        return monotonic_shift(self.trace, self.axis_clock, self.origin)

    def resolve(self, ask: Ask, within: Query | None = None) -> Resolved:
        """The checked `Query` of a user's words plus notes; ValueError (TypeError for a time
        that is neither text nor int) names a bad word, an unknown thread with close names.
        Thread names and ids select as `pick_threads` says, thread rows add to them; none
        named is every thread, or the main thread with `ask.main`; `start`/`end` are from the
        trace's start on the timeline axis (`time_range`), or points on CLOCK_MONOTONIC with
        `ask.time` "monotonic" (refused for a trace without an anchor). `within`: narrow that
        query (the Python API's steps): threads and ranges intersect, "my code" packages add
        up, a clock, a renaming or a time base replaces its own."""
        rows: set[int] | None = None
        notes: tuple[str, ...] = ()
        if ask.threads:
            pick = self.pick_threads(ask.threads)
            rows, notes = set(pick.rows), pick.notes
        if ask.rows:
            rows = (rows or set()) | {int(r) for r in ask.rows}
        if rows is None and ask.main and len(self.trace.threads):
            rows = {self.main_thread()}
        time = ask.time or (within.time if within is not None else None)
        base = self.time_base(time)
        lo, hi = offset_ns(ask.start, "start"), offset_ns(ask.end, "end")
        if lo is not None and hi is not None and hi < lo:
            raise ValueError(f"time range ends before it starts ({ask.start!r} > {ask.end!r})")
        if base == "monotonic":  # points on CLOCK_MONOTONIC: from the trace's start instead
            zero = self.origin + (self.monotonic_shift or 0)
            lo, hi = (None if v is None else v - zero for v in (lo, hi))
        tr = self.time_range(lo, hi)
        clock, my_code, rename = ask.clock, ask.my_code, ask.rename
        if within is not None:
            if rows is None:
                rows = None if within.threads is None else set(within.threads)
            elif within.threads is not None:
                rows &= set(within.threads)
                if not rows:
                    said = ", ".join(repr(w) for w in (*ask.threads, *ask.rows))
                    raise ValueError(f"{said} selects none of the threads already selected")
            tr = tr if within.time_range is None else within.time_range.narrowed(tr)
            clock = clock or within.clock
            my_code = (*within.my_code, *my_code)
            rename = within.rename if rename is None else rename
        return Resolved(self.query(rows, clock, tr, my_code, rename, base), notes)

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
        return self.memo("names", rename, lambda: rename.methods(self.trace.methods))

    # -- views -------------------------------------------------------------------------------

    def profile(self, q: Query) -> Profile:
        """traceview's statistics of the selection, both clocks (calls clipped to the range)."""

        def build() -> Profile:
            whole = q.threads is None and q.time_range is None and not q.my_code
            if whole and self._calls is None:
                return self.whole_profile()
            tr = q.time_range
            rng = (tr.lo, tr.hi) if tr is not None else None
            rc = tr.clock if tr is not None else None
            return profile(self.filtered(q), threads=q.threads, time_range=rng, range_clock=rc)

        return self.memo("profile", self._key(q), build)

    def whole_profile(self, clocks: tuple[str, ...] | None = None) -> Profile:
        """The profile of every thread on `clocks` (default the trace's), computed directly
        from the events (`analysis.direct`), or the one given when the session was opened."""
        if self._whole is not None and (clocks is None or set(clocks) <= set(self._whole.clocks)):
            return self._whole
        return direct_profile(self.trace, timings=self.timings, clocks=clocks)

    def top_down(self, q: Query) -> CallTree:
        """Calls merged by path from the root; with a range each call counts its clipped time
        (exclusive = clipped inclusive - the children's clipped inclusive)."""
        return self.memo("tree", (*self._key(q), "top"), lambda: self._top_down(q))

    def top_down_per_thread(self, q: Query) -> tuple[tuple[int, CallTree], ...]:
        """(thread row, its merged top-down tree) for each of `busy_threads(q)`, `q` narrowed to
        it; kept as one cache entry, so a forest of many threads never evicts other views."""

        def build() -> tuple[tuple[int, CallTree], ...]:
            rows = self.busy_threads(q)
            return tuple((t, self._top_down(replace(q, threads=(t,)))) for t in rows)

        return self.memo("tree", (*self._key(q), "per-thread"), build)

    def bottom_up(self, q: Query) -> CallTree:
        """Exclusive time by method, then by caller path (the inverted top-down tree)."""
        return self.memo("tree", (*self._key(q), "bottom"), lambda: invert(self.top_down(q)))

    def flame(self, q: Query, kind: str = "graph") -> FlameLayout:
        """The merged tree laid out as a flame graph ("graph"), top-down or bottom-up chart;
        ValueError for another kind."""
        if kind not in KINDS:
            raise ValueError(f"unknown flame kind {kind!r} (expected one of {', '.join(KINDS)})")
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
        """Build what a viewer's first screens ask for, step by step, each step waiting while
        a request is answered (analysis/warmup.py; the viewer marks its requests with
        `gate.serving()`); run in the background once the server is ready. Before its first
        step through numba (the merged tree) it calls `before_kernels` (the viewer waits there
        for the process filling numba's cache). Not `excl` (two int64 columns per call, 530
        MB at 70M records): a call look-up computes its subtree's."""
        warm(self)

    # -- the selection -----------------------------------------------------------------------

    def filtered(self, q: Query) -> CallTable:
        """The call table with only the query's "my code" frames (all calls when none)."""
        if not q.my_code:
            return self.calls
        key = (q.my_code, q.rename)
        return self.memo(
            "filtered", key, lambda: keep_packages(self.calls, q.my_code, self.methods(q))
        )

    def busy_threads(self, q: Query) -> list[int]:
        """The query's thread rows that have records, in row order (the parts of a per-thread
        export)."""
        rows = range(len(self.trace.threads)) if q.threads is None else q.threads
        return [int(t) for t in rows if self.thread_records[t] > 0]

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

    def _top_down(self, q: Query) -> CallTree:
        calls, tr = self.filtered(q), q.time_range
        if tr is None:
            return top_down(calls, q.threads)
        rows = range(len(calls.thread_ranges)) if q.threads is None else q.threads
        cuts = [cut_thread(calls, t, calls.clocks, tr.clock, (tr.lo, tr.hi)) for t in rows]
        return top_down(calls, cuts=cuts)

    def memo(self, kind: str, key: Hashable, build: Callable[[], T]) -> T:
        """The value of `kind` for `key` kept in this session (a small LRU per kind, built once
        under concurrent requests): how a room above the session (dmtracedump's numbers) keeps
        what it derives from this trace without a cache of its own."""
        return self._cache.get(kind, key, build)
