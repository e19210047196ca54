"""Level-of-detail tiles of the per-thread timeline, computed from the call table.

The viewer's timeline asks for one tile at a time: the trace span split into `2**level` tiles
of 1024 buckets. Calls at least one bucket wide come back as rectangles; narrower ones are
merged, per depth, into runs of adjacent busy buckets. Everything is a `searchsorted` on the
pre-order start column (chronological within a thread), so a tile never walks a whole thread:
small ranges are cut out directly, large ones come from per-level indexes built once.
Times here are int64 ns on one clock; the web layer turns them into µs.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
F64 = npt.NDArray[np.float64]

BUCKETS = 1024  # buckets per tile
MAX_LEVEL = 40  # 2**40 tiles: far below one ns per bucket for any real trace
DIRECT_LIMIT = 65_536  # a tile whose range holds more calls is answered from a level index
MAX_ITEMS = 60_000  # rects (and runs) per tile; deeper ones are cut and `truncated` is set


class CallColumns(Protocol):
    """What the timeline reads of a `CallTable` (see docs/architecture.md)."""

    @property
    def method(self) -> I32: ...
    @property
    def depth(self) -> I32: ...
    @property
    def parent(self) -> npt.NDArray[np.integer]: ...
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
    """Per-level index of one thread: wide calls (local rows) and narrow runs keyed by tile."""

    wide: I64
    wide_start: I64
    run_key: I64  # depth * ntiles + tile, sorted
    run_depth: I32
    run_first: I64  # global bucket index at this level
    run_last: I64
    run_count: I64


@dataclass
class _Lane:
    """One thread's calls on the timeline clock (views into the call table's columns)."""

    row0: int
    start: I64
    end: I64
    depth: I32
    method: I32
    parent: I64  # local row of the caller, -1 for roots
    levels: dict[int, _Level] = field(default_factory=dict)
    by_depth: I64 | None = None  # rows start, end, depth of the calls sorted by depth
    method_rows: dict[int, tuple[I64, I64]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


class Timeline:
    """Tiles and method highlights of every thread over `[span_start, span_end)` ns."""

    def __init__(
        self,
        calls: CallColumns,
        start: I64,
        end: I64,
        span_start: int,
        span_end: int,
    ) -> None:
        self.span_start = int(span_start)
        self.span_end = max(int(span_end), self.span_start + 1)
        self._lanes: list[_Lane] = []
        parent_all = np.asarray(calls.parent, dtype=np.int64)
        for first, stop in np.asarray(calls.thread_ranges, dtype=np.int64).reshape(-1, 2):
            lo, hi = int(first), int(stop)
            par = parent_all[lo:hi] - lo
            par[parent_all[lo:hi] < 0] = -1
            self._lanes.append(
                _Lane(
                    row0=lo,
                    start=start[lo:hi],
                    end=end[lo:hi],
                    depth=np.asarray(calls.depth[lo:hi], dtype=np.int32),
                    method=np.asarray(calls.method[lo:hi], dtype=np.int32),
                    parent=par,
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
        a = int(np.searchsorted(lane.start, t0, side="left"))
        b = int(np.searchsorted(lane.start, t1, side="left"))
        stack = _stack_at(lane, a, t0)
        if b - a <= DIRECT_LIMIT:
            # a narrow call belongs to the tile it starts in (as in the level indexes)
            rows = np.arange(a, b, dtype=np.int64)
            wide_mask = (lane.end[rows] - lane.start[rows]) >= width
            st = stack[(lane.end[stack] - lane.start[stack]) >= width]
            rects = np.concatenate([st, rows[wide_mask]])
            m_depth, m_first, m_last, m_count = _runs(
                lane, rows[~wide_mask], self.span_start, tile * BUCKETS, width
            )
        else:
            lv = self._level(lane, level, width)
            lo = int(np.searchsorted(lv.wide_start, t0, side="left"))
            hi = int(np.searchsorted(lv.wide_start, t1, side="left"))
            st = stack[(lane.end[stack] - lane.start[stack]) >= width]
            rects = np.concatenate([st, lv.wide[lo:hi]])
            m_depth, m_first, m_last, m_count = _level_runs(lv, tile, level)
            m_first = m_first - tile * BUCKETS
            m_last = m_last - tile * BUCKETS
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
        return Tile(
            thread=thread,
            level=level,
            tile=tile,
            t0=t0,
            t1=t1,
            rect_call=rects + lane.row0,
            rect_method=lane.method[rects],
            rect_depth=lane.depth[rects],
            rect_start=lane.start[rects],
            rect_end=lane.end[rects],
            merged_depth=m_depth.astype(np.int32),
            merged_start=np.maximum(base + m_first * width, 0.0),
            merged_end=np.minimum(base + (m_last + 1) * width, float(t1 - t0)),
            merged_count=m_count,
            truncated=truncated,
        )

    def highlight(self, method: int, thread: int, level: int, tile: int) -> tuple[F64, F64]:
        """Extents of `method`'s calls in one tile (ns after the tile's t0), merged where they
        touch one bucket."""
        lane = self._lane(thread)
        t0, t1, width = self.bounds(level, tile)
        rows, reach = self._method_rows(lane, method)
        a = int(np.searchsorted(lane.start[rows], t0, side="left"))
        b = int(np.searchsorted(lane.start[rows], t1, side="left"))
        j = int(np.searchsorted(reach, t0, side="right"))  # first call that may still be open
        sel = np.concatenate([rows[j:a][lane.end[rows[j:a]] > t0], rows[a:b]])
        if not len(sel):
            empty = np.zeros(0, dtype=np.float64)
            return empty, empty
        first = np.clip(np.floor((lane.start[sel] - t0) / width), 0, BUCKETS - 1)
        last = np.clip(np.ceil((lane.end[sel] - t0) / width), first + 1, BUCKETS)
        # sorted by start already; a new extent begins where the start passes every earlier end
        reach_b = np.maximum.accumulate(last)
        new = np.ones(len(sel), dtype=bool)
        new[1:] = first[1:] > reach_b[:-1]
        heads = np.flatnonzero(new)
        ends = np.append(heads[1:], len(sel)) - 1
        return first[heads] * width, np.minimum(reach_b[ends] * width, float(t1 - t0))

    def prepare(self, thread: int, levels: int = MAX_LEVEL + 1) -> None:
        """Build the level indexes (of the first `levels` levels) a tile of this thread may
        need, so that the first tile asked for is fast."""
        lane = self._lane(thread)
        n = len(lane.start)
        span = self.span_end - self.span_start
        if n <= DIRECT_LIMIT:
            return
        for level in range(min(levels, MAX_LEVEL + 1)):
            tiles = 1 << level
            if span < (BUCKETS << level) or tiles > 1 << 20:
                break  # sub-ns buckets: no tile at this level can hold many calls
            edges = self.span_start + np.floor(np.arange(tiles + 1) * (span / tiles))
            per_tile = np.diff(np.searchsorted(lane.start, edges))
            if int(per_tile.max()) <= DIRECT_LIMIT:
                break
            self._level(lane, level, span / float(BUCKETS << level))
        if levels > MAX_LEVEL:
            # every level a tile can use is built: drop the depth-sorted copy (24 bytes per
            # call; a level asked for later rebuilds it)
            with lane.lock:
                lane.by_depth = None

    # -- internals ---------------------------------------------------------------------------

    def _lane(self, thread: int) -> _Lane:
        if not 0 <= thread < len(self._lanes):
            raise ValueError(f"no thread row {thread}")
        return self._lanes[thread]

    def _level(self, lane: _Lane, level: int, width: float) -> _Level:
        cached = lane.levels.get(level)
        if cached is not None:
            return cached
        with lane.lock:  # built once even when a tile and the warm-up ask together
            cached = lane.levels.get(level)
            return cached if cached is not None else self._build_level(lane, level, width)

    def _build_level(self, lane: _Lane, level: int, width: float) -> _Level:
        if lane.by_depth is None:
            key = lane.depth.astype(np.uint16) if int(lane.depth.max()) < 1 << 16 else lane.depth
            order = np.argsort(key, kind="stable")
            # gathered once: per level every pass below is then sequential
            lane.by_depth = np.stack([lane.start[order], lane.end[order], lane.depth[order]])
        d_start, d_end, d_depth = lane.by_depth
        wide = np.flatnonzero((lane.end - lane.start) >= width).astype(np.int64)
        narrow = (d_end - d_start) < width
        rel = self.span_start
        first = ((d_start[narrow] - rel) / width).astype(np.int64)
        last = ((np.maximum(d_end[narrow] - 1, d_start[narrow]) - rel) / width).astype(np.int64)
        depth = d_depth[narrow]
        n_narrow = len(depth)
        ntiles = 1 << level
        top = (BUCKETS << level) - 1
        np.clip(first, 0, top, out=first)
        np.clip(last, first, top, out=last)
        # a run breaks at a depth change, a gap of a whole bucket, or a tile edge
        brk = np.ones(n_narrow, dtype=bool)
        brk[1:] = (
            (depth[1:] != depth[:-1])
            | (first[1:] > last[:-1] + 1)
            | ((first[1:] >> 10) != (last[:-1] >> 10))
        )
        heads = np.flatnonzero(brk)
        tails = np.append(heads[1:], n_narrow) - 1
        run_first = first[heads]
        run_last = np.minimum(np.maximum.reduceat(last, heads) if len(heads) else last[:0], top)
        run_last = np.minimum(run_last, ((run_first >> 10) + 1) * BUCKETS - 1)
        run_depth = depth[heads]
        lv = _Level(
            wide=wide,
            wide_start=lane.start[wide],
            run_key=run_depth * ntiles + (run_first >> 10),
            run_depth=run_depth.astype(np.int32),
            run_first=run_first,
            run_last=run_last,
            run_count=(tails - heads + 1).astype(np.int64),
        )
        lane.levels[level] = lv
        return lv

    def _method_rows(self, lane: _Lane, method: int) -> tuple[I64, I64]:
        cached = lane.method_rows.get(method)
        if cached is None:
            rows = np.flatnonzero(lane.method == method).astype(np.int64)
            reach = np.maximum.accumulate(lane.end[rows]) if len(rows) else lane.end[:0]
            cached = (rows, reach)
            if len(lane.method_rows) > 256:
                lane.method_rows.clear()
            lane.method_rows[method] = cached
        return cached


def _stack_at(lane: _Lane, a: int, t0: int) -> I64:
    """Local rows of the calls that started before `t0` and are still open at `t0`."""
    out: list[int] = []
    row = a - 1
    while row >= 0:
        if lane.end[row] > t0:
            out.append(row)
        row = int(lane.parent[row])
    return np.array(out[::-1], dtype=np.int64)


def _runs(
    lane: _Lane, rows: I64, origin: int, offset: int, width: float
) -> tuple[I64, I64, I64, I64]:
    """Merge narrow calls (local rows) into per-depth runs of busy buckets of one tile.

    Buckets are counted from `origin` (the span start, as in the level indexes) minus `offset`.
    """
    if not len(rows):
        z = np.zeros(0, dtype=np.int64)
        return z, z, z, z
    first = ((lane.start[rows] - origin) / width).astype(np.int64) - offset
    last = ((np.maximum(lane.end[rows] - 1, lane.start[rows]) - origin) / width).astype(np.int64)
    np.clip(first, 0, BUCKETS - 1, out=first)
    last = np.clip(last - offset, first, BUCKETS - 1)
    depth = lane.depth[rows].astype(np.int64)
    key_first = depth * BUCKETS + first
    busy = np.unique(np.concatenate([key_first, depth * BUCKETS + last]))
    new = np.ones(len(busy), dtype=bool)
    new[1:] = (busy[1:] != busy[:-1] + 1) | (busy[1:] % BUCKETS == 0)
    run_of_busy = np.cumsum(new) - 1
    heads = np.flatnonzero(new)
    tails = np.append(heads[1:], len(busy)) - 1
    count = np.bincount(run_of_busy[np.searchsorted(busy, key_first)], minlength=len(heads))
    return busy[heads] // BUCKETS, busy[heads] % BUCKETS, busy[tails] % BUCKETS, count


def _level_runs(lv: _Level, tile: int, level: int) -> tuple[I64, I64, I64, I64]:
    """The runs of one tile from a level index: one contiguous slice per depth."""
    if not len(lv.run_key):
        z = np.zeros(0, dtype=np.int64)
        return z, z, z, z
    ntiles = 1 << level
    depths = np.arange(int(lv.run_depth.max()) + 1, dtype=np.int64)
    lo = np.searchsorted(lv.run_key, depths * ntiles + tile, side="left")
    hi = np.searchsorted(lv.run_key, depths * ntiles + tile, side="right")
    n = hi - lo
    total = int(n.sum())
    if not total:
        z = np.zeros(0, dtype=np.int64)
        return z, z, z, z
    idx = np.repeat(lo - np.cumsum(n) + n, n) + np.arange(total)
    return (
        lv.run_depth[idx].astype(np.int64),
        lv.run_first[idx],
        lv.run_last[idx],
        lv.run_count[idx],
    )
