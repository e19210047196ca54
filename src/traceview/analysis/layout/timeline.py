"""Level-of-detail tiles of the per-thread timeline, computed from the call table.

The viewer's timeline asks for one tile at a time: the trace span split into `2**level` tiles
of 1024 buckets. Calls at least one bucket wide come back as rectangles; narrower ones are
merged, per depth, into runs of adjacent busy buckets. Everything is a binary search on the
calls' starts (pre-order is chronological within a thread), so a tile never walks a whole
thread: a tile of few calls is answered from the index of its own calls, a larger one from
per-level indexes built once per thread (analysis/layout/levelindex.py: native passes, no
numba imported). A thread's
lane keeps views, not copies: the call table's columns and the events' time column, from
which a start or an end is read when asked for (a lane's starts are gathered only while its
level indexes are built). Times here are int64 ns on one
clock; the web layer turns them into µs.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from traceview.analysis.calls import gather, search_starts
from traceview.analysis.kernels.tiling import BUCKETS, MAX_LEVEL
from traceview.analysis.layout import levelindex
from traceview.analysis.workers import default_workers, parallel_map

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
F64 = npt.NDArray[np.float64]

DIRECT_LIMIT = 65_536  # a tile whose range holds more calls is answered from a level index
MAX_ITEMS = 60_000  # rects (and runs) per tile; deeper ones are cut and `truncated` is set
HIGHLIGHT_BYTES = 32 << 20  # the highlights' method rows kept, in all


class CallColumns(Protocol):
    """What the timeline reads of a `CallTable` (see docs/architecture.md)."""

    @property
    def method(self) -> npt.NDArray[np.signedinteger[Any]]: ...
    @property
    def depth(self) -> I32: ...
    @property
    def parent(self) -> npt.NDArray[np.integer]: ...
    @property
    def enter_event(self) -> npt.NDArray[np.integer]: ...
    @property
    def exit_event(self) -> npt.NDArray[np.integer]: ...
    @property
    def thread_ranges(self) -> npt.NDArray[np.integer] | list[tuple[int, int]]: ...


@dataclass(frozen=True)
class Tile:
    """One answered tile: rects are call rows (global) with their ns times; merged runs are
    bucket-aligned, in ns after `t0`."""

    thread: int
    level: int
    tile: int
    t0: int
    t1: int
    rect_call: I64
    rect_method: I32
    rect_depth: I32
    rect_start: I64
    rect_end: I64
    merged_depth: I32
    merged_start: F64  # ns after t0 (floats stay small: exact even for epoch-based clocks)
    merged_end: F64
    merged_count: I64
    truncated: bool


@dataclass
class _Level:
    """Per-level index of one thread (built by `levelindex.build`): wide calls (local rows, in
    time order) and narrow runs, grouped by depth (`depth_at`) and in time order within one."""

    wide: I32 | I64
    depth_at: I64  # runs of depth d: [depth_at[d], depth_at[d + 1])
    run_first: I32 | I64  # first bucket, counted over the whole level (int32 to level 21)
    run_last: npt.NDArray[np.uint16]  # last bucket minus first (runs stay inside a tile)
    run_count: I32 | I64  # narrow calls merged


@dataclass
class _Lane:
    """One thread's calls: views into the call table's columns (no copies; start and end
    times are read from the events where asked for, and searched there: a thread's calls
    start in row order)."""

    row0: int
    enter_event: npt.NDArray[np.integer]
    exit_event: npt.NDArray[np.integer]
    depth: I32
    method: I32
    levels: dict[int, _Level] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


class Timeline:
    """Tiles and method highlights of every thread over `[span_start, span_end)` ns.

    `times` is the events' column on the timeline's clock: a call starts at
    `times[calls.enter_event[row]]` and ends at `times[calls.exit_event[row]]`; no column of
    the calls' times is kept (at 70M records one would be 270 MB).
    """

    def __init__(
        self,
        calls: CallColumns,
        times: I64,
        span_start: int,
        span_end: int,
    ) -> None:
        self.span_start = int(span_start)
        self.span_end = max(int(span_end), self.span_start + 1)
        self._times = times
        self._parent = calls.parent
        # highlights' (starts, ends, running max of ends) per (thread, method), least recently
        # used first, bounded in bytes (a common method's calls in a big thread are MBs)
        self._method_rows: OrderedDict[tuple[int, int], tuple[I64, I64, I64]] = OrderedDict()
        self._method_bytes = 0
        self._method_lock = threading.Lock()
        self._lanes: list[_Lane] = []
        for first, stop in np.asarray(calls.thread_ranges, dtype=np.int64).reshape(-1, 2):
            lo, hi = int(first), int(stop)
            self._lanes.append(
                _Lane(
                    row0=lo,
                    enter_event=calls.enter_event[lo:hi],
                    exit_event=calls.exit_event[lo:hi],
                    depth=calls.depth[lo:hi],
                    method=calls.method[lo:hi],
                )
            )

    @property
    def threads(self) -> int:
        """Number of thread rows."""
        return len(self._lanes)

    def bounds(self, level: int, tile: int) -> tuple[int, int, float]:
        """`(t0, t1, bucket width)` of tile `tile` at `level`, in ns; ValueError if out of range."""
        if not 0 <= level <= MAX_LEVEL or not 0 <= tile < (1 << level):
            raise ValueError(f"no tile {tile} at level {level}")
        span = self.span_end - self.span_start
        t0 = self.span_start + (span * tile >> level)
        t1 = self.span_start + (span * (tile + 1) >> level)
        return t0, t1, span / float(BUCKETS << level)

    def tile(self, thread: int, level: int, tile: int) -> Tile:
        """The rects and merged runs of one tile of thread row `thread`."""
        lane = self._lane(thread)
        t0, t1, width = self.bounds(level, tile)
        a, b = self._search(lane, t0), self._search(lane, t1)
        stack = self._stack_at(lane, a, t0)
        st = stack[(self._end(lane, stack) - self._start(lane, stack)) >= width]
        if b - a <= DIRECT_LIMIT:  # the index of the tile's own calls (they start in it)
            part = slice(a, b)
            lv = _Level(*self._index(lane, [level], part, self._start(lane, part))[0])
            rects = np.concatenate([st, lv.wide.astype(np.int64) + a])
        else:
            lv = self._level(lane, level)
            # wide rows are in time order, so the tile's are those of its rows [a, b)
            lo, hi = np.searchsorted(lv.wide, [a, b], side="left")
            rects = np.concatenate([st, lv.wide[lo:hi]])
        m_depth, m_first, m_last, m_count = levelindex.cut(
            lv.depth_at, lv.run_first, lv.run_last, lv.run_count, tile
        )
        base = tile * BUCKETS * width - (t0 - self.span_start)  # bucket 0, relative to t0
        truncated = False
        if len(rects) > MAX_ITEMS:
            keep = np.argsort(lane.depth[rects], kind="stable")[:MAX_ITEMS]
            rects, truncated = np.sort(rects[keep]), True
        if len(m_depth) > MAX_ITEMS:
            keep = np.argsort(m_depth, kind="stable")[:MAX_ITEMS]
            keep.sort()
            m_depth, m_first, m_last, m_count = (
                m_depth[keep],
                m_first[keep],
                m_last[keep],
                m_count[keep],
            )
            truncated = True
        rects = rects.astype(np.int64, copy=False)
        return Tile(
            thread=thread,
            level=level,
            tile=tile,
            t0=t0,
            t1=t1,
            rect_call=rects + lane.row0,
            rect_method=lane.method[rects],
            rect_depth=lane.depth[rects],
            rect_start=self._start(lane, rects),
            rect_end=self._end(lane, rects),
            merged_depth=m_depth.astype(np.int32),
            merged_start=np.maximum(base + m_first * width, 0.0),
            merged_end=np.minimum(base + (m_last + 1) * width, float(t1 - t0)),
            merged_count=m_count.astype(np.int64),
            truncated=truncated,
        )

    def highlight(self, method: int, thread: int, level: int, tile: int) -> tuple[F64, F64]:
        """Extents of `method`'s calls in one tile (ns after the tile's t0), merged where they
        touch one bucket."""
        self._lane(thread)
        t0, t1, width = self.bounds(level, tile)
        starts, ends, reach = self._rows_of(thread, method)
        a = int(np.searchsorted(starts, t0, side="left"))
        b = int(np.searchsorted(starts, t1, side="left"))
        j = int(np.searchsorted(reach, t0, side="right"))  # first call that may still be open
        open_ = np.flatnonzero(ends[j:a] > t0) + j
        sel = np.concatenate([open_, np.arange(a, b)])
        if not len(sel):
            empty = np.zeros(0, dtype=np.float64)
            return empty, empty
        first = np.clip(np.floor((starts[sel] - t0) / width), 0, BUCKETS - 1)
        last = np.clip(np.ceil((ends[sel] - t0) / width), first + 1, BUCKETS)
        # sorted by start already; a new extent begins where the start passes every earlier end
        reach_b = np.maximum.accumulate(last)
        new = np.ones(len(sel), dtype=bool)
        new[1:] = first[1:] > reach_b[:-1]
        heads = np.flatnonzero(new)
        tails = np.append(heads[1:], len(sel)) - 1
        return first[heads] * width, np.minimum(reach_b[tails] * width, float(t1 - t0))

    def prepare(self, thread: int, levels: int = MAX_LEVEL + 1) -> None:
        """Build the level indexes (of the first `levels` levels) a tile of this thread may
        need, so that the first tile asked for is fast: all of them in one pass."""
        lane = self._lane(thread)
        if len(lane.enter_event) <= DIRECT_LIMIT:
            return  # every tile of the lane is answered directly
        starts = self._starts(lane)  # the lane's starts while it is prepared
        wanted = self._needed(lane, levels, starts)
        if wanted:
            with lane.lock:  # built once even when a tile and the warm-up ask together
                self._build(lane, [lv for lv in wanted if lv not in lane.levels], starts)

    def prepare_all(self, levels: int = MAX_LEVEL + 1, workers: int | None = None) -> None:
        """`prepare` every thread, biggest first, two at a time on a two-core machine (the
        passes release the GIL and allocate only their results; TRACEVIEW_WORKERS decides
        when set, `workers` when given)."""
        n = default_workers(unset=2) if workers is None else max(1, workers)
        parallel_map(lambda t: self.prepare(t, levels), self.biggest_first(), n)

    def biggest_first(self) -> list[int]:
        """Thread rows by decreasing number of calls (ties by row)."""
        return sorted(range(len(self._lanes)), key=lambda t: -len(self._lanes[t].enter_event))

    # -- internals ---------------------------------------------------------------------------

    def _lane(self, thread: int) -> _Lane:
        if not 0 <= thread < len(self._lanes):
            raise ValueError(f"no thread row {thread}")
        return self._lanes[thread]

    def _start(self, lane: _Lane, rows: npt.NDArray[np.integer] | slice) -> I64:
        """Start ns of local rows (gathered from the events)."""
        starts: I64 = self._times[lane.enter_event[rows]]
        return starts

    def _starts(self, lane: _Lane) -> I64:
        """Start ns of all the lane's calls, gathered in slices: numpy widens a narrow index to
        intp before gathering, which for a whole big lane is one more call-sized column."""
        return gather(self._times, lane.enter_event)

    def _search(self, lane: _Lane, t: int) -> int:
        """The first local row starting at or after `t`."""
        return search_starts(self._times, lane.enter_event, 0, len(lane.enter_event), t)

    def _end(self, lane: _Lane, rows: npt.NDArray[np.integer]) -> I64:
        """End ns of local rows (gathered from the events: the lane keeps no end column)."""
        ends: I64 = self._times[lane.exit_event[rows]]
        return ends

    def _needed(self, lane: _Lane, levels: int, starts: I64) -> list[int]:
        """The levels below `levels` (not built yet) at which some tile of the lane holds more
        calls than the direct path answers. Only the children of such full tiles are counted
        at the next level (at most calls / DIRECT_LIMIT of them), and the first level
        without a full tile ends the list. `starts`: the lane's start times."""
        span = self.span_end - self.span_start
        out: list[int] = []
        full = np.zeros(1 if len(starts) > DIRECT_LIMIT else 0, dtype=np.int64)
        for level in range(min(levels, MAX_LEVEL + 1)):
            if not len(full) or span < (BUCKETS << level) or level > 20:
                break  # sub-ns buckets: no tile at this level can hold many calls
            step = span / (1 << level)
            edges = self.span_start + np.floor(np.concatenate([full, full + 1]) * step)
            at = np.searchsorted(starts, edges).reshape(2, -1)
            full = full[(at[1] - at[0]) > DIRECT_LIMIT]
            if len(full) and level not in lane.levels:
                out.append(level)
            full = np.stack([2 * full, 2 * full + 1], axis=1).ravel()
        return out

    def _level(self, lane: _Lane, level: int) -> _Level:
        cached = lane.levels.get(level)
        if cached is not None:
            return cached
        with lane.lock:
            if level not in lane.levels:
                self._build(lane, [level])
            return lane.levels[level]

    def _build(self, lane: _Lane, wanted: list[int], starts: I64 | None = None) -> None:
        """Build the indexes of levels `wanted` of a lane in one compiled pass (under its
        lock); `starts`, the lane's start times, are gathered for the pass when not given."""
        if not wanted:
            return
        whole = slice(0, len(lane.enter_event))
        built = self._index(lane, wanted, whole, self._starts(lane) if starts is None else starts)
        for level, index in zip(wanted, built, strict=True):
            lane.levels[level] = _Level(*index)

    def _index(
        self, lane: _Lane, levels: list[int], rows: slice, starts: I64
    ) -> list[levelindex.Index]:
        """The indexes of `levels` of the lane's calls `rows` (`starts`: their start times):
        `levelindex.build`, local rows counted from `rows.start`."""
        return levelindex.build(
            starts,
            self._times,
            lane.exit_event[rows],
            lane.depth[rows],
            self.span_start,
            self.span_end - self.span_start,
            levels,
        )

    def _rows_of(self, thread: int, method: int) -> tuple[I64, I64, I64]:
        """Starts and ends of `method`'s calls in a thread, and the running maximum of the
        ends (kept for the next highlights, up to `HIGHLIGHT_BYTES` in all)."""
        key = (thread, method)
        with self._method_lock:
            hit = self._method_rows.get(key)
            if hit is not None:
                self._method_rows.move_to_end(key)
                return hit
        lane = self._lanes[thread]
        rows = np.flatnonzero(lane.method == method)
        ends = self._end(lane, rows)
        reach = np.maximum.accumulate(ends) if len(rows) else ends
        found = (self._start(lane, rows), ends, reach)
        size = 3 * 8 * len(rows)
        with self._method_lock:
            if key not in self._method_rows:
                self._method_rows[key] = found
                self._method_bytes += size
            while self._method_bytes > HIGHLIGHT_BYTES and len(self._method_rows) > 1:
                _, old = self._method_rows.popitem(last=False)
                self._method_bytes -= 3 * 8 * len(old[0])
        return found

    def _stack_at(self, lane: _Lane, a: int, t0: int) -> I64:
        """Local rows of the calls that started before `t0` and are still open at `t0`."""
        out: list[int] = []
        row = a - 1
        while row >= 0:
            if self._times[lane.exit_event[row]] > t0:
                out.append(row)
            up = int(self._parent[lane.row0 + row])
            row = up - lane.row0 if up >= 0 else -1
        return np.array(out[::-1], dtype=np.int64)
