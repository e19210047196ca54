"""One loaded trace as the viewer sees it: the call table, the timeline index and answer caches.

`Session.load(path, progress)` reads a trace and builds what the first screen needs (calls,
default profile for the method colours, timeline); `web/app.py` and `exporters/html.py` ask
it for answers through `web/answers.py`. Answers are cached as encoded JSON per request key
(path + sorted parameters, i.e. per threads/clock/range/mycode), filtered call tables per
"my code" prefix set.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from traceview.analysis.calls import CallTable, build_calls
from traceview.analysis.calltree import CallTree, top_down
from traceview.analysis.flame import invert
from traceview.analysis.mycode import keep_calls, keep_packages, parse_prefixes, select_rows
from traceview.analysis.profile import Profile, profile
from traceview.analysis.timeline import Timeline
from traceview.model import Trace

I64 = npt.NDArray[np.int64]
Progress = Callable[[str], None]
CACHE_ANSWERS = 512
CACHE_FILTERS = 8
T = TypeVar("T")


@dataclass(frozen=True)
class Query:
    """The common query parameters, parsed: clock, thread rows, ns range, my-code prefixes."""

    clock: str
    threads: tuple[int, ...] | None
    time_range: tuple[int, int] | None
    mycode: tuple[str, ...]


class Session:
    """A trace plus everything derived from it that the viewer reuses between requests."""

    def __init__(self, trace: Trace, calls: CallTable | None = None, *, live: bool = True) -> None:
        self.trace = trace
        self.live = live
        self.calls = build_calls(trace) if calls is None else calls
        clocks = trace.clocks
        self.timeline_clock = "wall" if "wall" in clocks else "cpu"
        self.default_clock = "cpu" if "cpu" in clocks and trace.header.clock != "wall" else "wall"
        self.clocks = tuple(c for c in ("cpu", "wall") if c in clocks)
        spans = [self.calls.thread_span(t, self.timeline_clock) for t in range(len(trace.threads))]
        records = np.bincount(trace.events.thread, minlength=len(trace.threads))
        has = records > 0
        live_spans = [s for s, h in zip(spans, has, strict=True) if h]
        self.origin = min((s[0] for s in live_spans), default=0)
        self.end = max((s[1] for s in live_spans), default=0)
        self.thread_spans = spans
        self.thread_records = records
        self.thread_has_events = has
        self.lock = threading.RLock()
        self._answers: OrderedDict[str, bytes] = OrderedDict()
        self._filters: OrderedDict[tuple[str, ...], CallTable] = OrderedDict()
        self._timeline: Timeline | None = None
        self._profiles: OrderedDict[tuple[object, ...], Profile] = OrderedDict()
        self._excl: dict[str, I64] = {}
        self._trees: OrderedDict[tuple[object, ...], CallTree] = OrderedDict()
        self._gates: dict[tuple[int, Any], threading.Lock] = {}
        self._colors: I64 | None = None
        self._starts: dict[tuple[str, ...], I64] = {}

    @classmethod
    def load(cls, source: str, progress: Progress | None = None) -> Session:
        """Read `source` and build the calls, colours and timeline, reporting each phase."""
        from traceview import load

        step = progress or (lambda _phase: None)
        step("reading")
        trace = load(source)
        step("building calls")
        session = cls(trace)
        step("profiling")
        session.method_colors()
        step("indexing the timeline")
        session.timeline()
        step("ready")
        return session

    @classmethod
    def from_bytes(cls, data: bytes, name: str) -> Session:
        """A session over a trace given as bytes (an upload); `name` becomes its source."""
        from traceview import load

        trace = load(data)
        trace.source = name
        session = cls(trace)
        session.method_colors()
        return session

    # -- derived data, built once -------------------------------------------------------------

    def timeline(self) -> Timeline:
        """The LOD index of every thread on the timeline clock."""
        with self.lock:
            if self._timeline is None:
                clock = self.timeline_clock
                self._timeline = Timeline(
                    self.calls,
                    self._start_column((), self.calls),
                    self.calls.end(clock),
                    self.origin,
                    self.end,
                )
            return self._timeline

    def prepare_timeline(self) -> None:
        """Build the tile indexes of the big threads, the exclusive times and the default merged
        tree (run in the background after the server starts): what a first screen asks for
        first (the first tile levels, then the flame graph, hovers), deep zoom levels last."""
        tl = self.timeline()
        for t in range(tl.threads):
            tl.prepare(t, 3)
        self.tree(self.query())  # the default flame graph
        for clock in self.clocks:
            self.excl(clock)  # for /api/call
        for t in range(tl.threads):
            tl.prepare(t)

    def method_colors(self) -> I64:
        """Palette index per method row: round-robin in order of inclusive time, -1 if unused."""
        with self.lock:
            if self._colors is None:
                prof = profile(self.calls)
                self._profiles[(None, None, ())] = prof  # the key of the default query
                order = prof.used()
                colors = np.full(len(self.trace.methods), -1, dtype=np.int64)
                colors[order] = np.arange(len(order)) % 16
                self._colors = colors
            return self._colors

    def filtered(self, mycode: tuple[str, ...]) -> CallTable:
        """The call table with only the `mycode` packages' frames (all calls when empty)."""
        if not mycode:
            return self.calls
        with self.lock:
            hit = self._filters.get(mycode)
            if hit is None:
                hit = keep_packages(self.calls, mycode)
                self._filters[mycode] = hit
                while len(self._filters) > CACHE_FILTERS:
                    self._filters.popitem(last=False)
            return hit

    def selection(self, q: Query) -> CallTable:
        """The calls a query looks at: "my code" folded, then cut to the calls of the selected
        threads near the time range (those overlapping it, their ancestors, and the calls
        holding the range's neighbouring events), so a narrow range stays cheap."""
        calls = self.filtered(q.mycode)
        if q.time_range is None:
            return calls
        parts = []
        for chain, first, last, end in self._windows(calls, q):
            parts.append(chain)
            parts.append(np.arange(first, min(last + 1, end), dtype=np.int64))
        # already sorted and distinct: threads in row order, each chain below its window
        rows = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
        return select_rows(calls, rows)

    def _windows(self, calls: CallTable, q: Query) -> list[tuple[I64, int, int, int]]:
        """Per selected thread with calls: the last call starting before the range with its
        ancestors (root first), the rows `[first, last)` starting inside the range, and the
        thread's end row."""
        assert q.time_range is not None
        rlo, rhi = q.time_range
        threads = range(len(self.trace.threads)) if q.threads is None else q.threads
        starts = self._start_column(q.mycode, calls)
        out = []
        for t in threads:
            lo, hi = (int(x) for x in calls.thread_ranges[t])
            if hi == lo:
                continue
            start = starts[lo:hi]
            a = int(np.searchsorted(start, rlo, side="left"))
            b = int(np.searchsorted(start, rhi, side="left"))
            chain = []
            row = lo + a - 1
            while row >= lo:
                chain.append(row)
                row = int(calls.parent[row])
            out.append((np.array(chain[::-1], dtype=np.int64), lo + a, lo + b, hi))
        return out

    def _overlapping(self, calls: CallTable, q: Query) -> CallTable | None:
        """The calls overlapping the query's range, cut straight from `calls`: the rows starting
        inside it and the callers still running at its start. None when a kept call's caller
        is not kept (a zero-length call at the end of its caller: `keep_calls` re-links it)."""
        assert q.time_range is not None
        rlo = q.time_range[0]
        ends = self.trace.events.time(self.timeline_clock)
        parts = []
        for chain, first, last, _ in self._windows(calls, q):
            kept = chain[ends[calls.exit_event[chain]] > rlo]
            par = calls.parent[first:last]
            callers = np.concatenate((par[(par >= 0) & (par < first)], calls.parent[kept]))
            if not np.isin(callers[callers >= 0], kept).all():
                return None
            parts.append(kept)
            parts.append(np.arange(first, last, dtype=np.int64))
        rows = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
        return select_rows(calls, rows)

    def _start_column(self, mycode: tuple[str, ...], calls: CallTable) -> I64:
        """Start ns on the timeline clock of every call of `filtered(mycode)` (kept, so a range
        query searches it instead of gathering a thread's starts from the events each time)."""
        with self.lock:
            hit = self._starts.get(mycode)
            if hit is None or len(hit) != len(calls):
                hit = calls.start(self.timeline_clock)
                if len(self._starts) >= CACHE_FILTERS:
                    self._starts.clear()
                self._starts[mycode] = hit
            return hit

    def profile(self, q: Query) -> Profile:
        """The profile of a query's selection on both clocks (cached per threads/range/mycode)."""
        return self._memo(
            self._profiles,
            (q.threads, q.time_range, q.mycode),
            lambda: profile(self.selection(q), threads=q.threads, time_range=q.time_range),
        )

    def tree(self, q: Query, bottom_up: bool = False) -> CallTree:
        """The top-down (or bottom-up) merged tree of a query's selection, cached per
        threads/range/mycode. With a time range it merges the calls overlapping the range,
        each with its whole time.
        """

        def build() -> CallTree:
            if bottom_up:
                return invert(self.tree(q))
            if q.time_range is not None:
                cut = self._overlapping(self.filtered(q.mycode), q)
                if cut is not None:
                    return top_down(cut, q.threads)
            calls = self.selection(q)
            if q.time_range is not None:
                lo, hi = q.time_range
                start, end = calls.start(self.timeline_clock), calls.end(self.timeline_clock)
                overlap = (start < hi) & ((end > lo) | ((start == end) & (start >= lo)))
                calls = keep_calls(calls, overlap)
            return top_down(calls, q.threads)

        return self._memo(self._trees, (q.threads, q.time_range, q.mycode, bottom_up), build)

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
                while len(store) > CACHE_FILTERS:
                    store.popitem(last=False)
                self._gates.pop((id(store), key), None)
        return value

    def excl(self, clock: str, build: bool = True) -> I64 | None:
        """Exclusive ns of every call on `clock` (cached; None if not built and not `build`)."""
        with self.lock:
            hit = self._excl.get(clock)
        if hit is None and build:
            hit = self.calls.excl(clock)
            with self.lock:
                self._excl[clock] = hit
        return hit

    # -- queries and caching ------------------------------------------------------------------

    def query(
        self,
        clock: str | None = None,
        threads: str | None = None,
        t0: str | None = None,
        t1: str | None = None,
        mycode: str | None = None,
    ) -> Query:
        """Parse the common parameters (strings as sent); ValueError on a bad one."""
        c = clock or self.default_clock
        if c not in self.clocks:
            raise ValueError(f"this trace has no {c} clock")
        rows: tuple[int, ...] | None = None
        if threads:
            rows = tuple(sorted({int(x) for x in threads.split(",") if x.strip()}))
            if any(not 0 <= r < len(self.trace.threads) for r in rows):
                raise ValueError("thread row out of range")
        rng = None
        if t0 not in (None, "") or t1 not in (None, ""):
            lo = self.origin + round(float(t0) * 1000) if t0 else self.origin
            hi = self.origin + round(float(t1) * 1000) if t1 else self.end
            if hi < lo:  # (inf/NaN already failed in round())
                raise ValueError("bad time range")
            rng = (int(lo), int(hi))
        return Query(c, rows, rng, parse_prefixes(mycode))

    def cached(self, key: str, compute: Callable[[], bytes]) -> bytes:
        """The encoded answer for `key`, computed once (LRU of CACHE_ANSWERS answers)."""
        with self.lock:
            hit = self._answers.get(key)
            if hit is not None:
                self._answers.move_to_end(key)
                return hit
        data = compute()  # outside the lock: a slow profile must not hold up the tiles
        with self.lock:
            self._answers[key] = data
            while len(self._answers) > CACHE_ANSWERS:
                self._answers.popitem(last=False)
        return data

    def main_thread(self) -> int:
        """The main thread's row: named "main", else id == pid, else id 1, else the busiest."""
        th = self.trace.threads
        for row in range(len(th)):
            if th.name[row] == "main":
                return row
        for wanted in (self.trace.header.pid, 1):
            if wanted is not None:
                row_of = th.row_of(int(wanted))
                if row_of is not None:
                    return row_of
        sizes = np.diff(self.calls.thread_ranges, axis=1).ravel()
        return int(np.argmax(sizes)) if len(sizes) else 0
