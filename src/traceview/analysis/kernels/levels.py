"""Compiled passes behind the timeline's level indexes (`timeline.py`): building the indexes
of one thread (any number of levels in one O(n) pass over its calls), and cutting one tile's
runs out of them.

A level index holds the wide calls (at least one bucket wide) as local rows, and the narrow
ones merged per depth into runs of adjacent busy buckets, grouped by depth and in time order
within a depth. A narrow call belongs to the tile its start falls in (`t0 <= start < t1`, the
exact integer tile bounds) and makes its first and last bucket busy, clipped to that tile:
exactly what the direct path (`Timeline._runs`) computes from a tile's rows. Calls at one depth
never overlap, so in pre-order their buckets only move forward: each depth keeps one open run,
and each depth's runs close in time order. The pass appends closed runs (16 bytes each) and
wide rows (8) to buffers; counting sorts by level and depth then place them in the compact
columns. Ends are gathered from the events' time column as the pass goes: no copy of the
calls (the old build sorted a 24-byte-per-call copy by depth).

Imported lazily (it imports numba, see `jit.py`); kernels release the GIL.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from traceview.analysis.kernels.jit import njit
from traceview.analysis.kernels.tiling import BUCKETS

Array = npt.NDArray[Any]

SHIFT = 10  # log2(BUCKETS)


@njit
def tile_start(span: int, k: int, level: int) -> int:
    """`span * k >> level` without overflow (the offset of tile `k` of `2**level`; k < 2**level
    <= 2**40, span < 2**63), as `Timeline.bounds` computes it with Python integers."""
    q = span >> level
    r = span - (q << level)  # < 2**level
    if level <= 31:
        return q * k + ((r * k) >> level)
    kh = k >> 20  # r * k = (r * kh) * 2**20 + r * kl, each product < 2**60
    kl = k - (kh << 20)
    b = r * kl
    return q * k + (((r * kh) + (b >> 20)) >> (level - 20))


@njit
def _tile_of(rel: int, span: int, level: int, lo: int, guess: int) -> int:
    """The last tile of `level` whose start offset is at most `rel`, given that tile `lo`'s
    is: the bucket's tile (`guess`) is usually it; a binary search otherwise (many empty
    tiles when the span holds fewer ns than the level has tiles)."""
    hi = (1 << level) - 1
    g = min(max(guess, lo), hi)
    if tile_start(span, g, level) <= rel:
        lo = g
        if g == hi or tile_start(span, g + 1, level) > rel:
            return g
    else:
        hi = g - 1
    while lo < hi:
        mid = (lo + hi + 1) >> 1
        if tile_start(span, mid, level) <= rel:
            lo = mid
        else:
            hi = mid - 1
    return lo


@njit
def _grow(buf: Any) -> Any:
    """`buf` (along its first axis) with twice the room, the filled part copied: item by item,
    since an array assigned to a slice compiles numba's shape-mismatch message (its string
    formatting, ~3 s CPU on a first run)."""
    out = np.empty((2 * buf.shape[0], *buf.shape[1:]), buf.dtype)
    flat, old = out.reshape(-1), buf.reshape(-1)  # C order: buf's rows come first
    for i in range(old.size):
        flat[i] = old[i]
    return out


@njit
def _emit(runs: Any, n: int, key: int, tile: int, first: int, last: int, calls: int) -> Any:
    """Append a closed run, packed in two int64 (`key << 32 | calls`, `bucket << 10 |
    last - first`: keys and counts stay below 2**31, buckets below 2**51)."""
    if n == len(runs):
        runs = _grow(runs)
    runs[n, 0] = (key << 32) | calls
    runs[n, 1] = (((tile << SHIFT) + first) << SHIFT) | (last - first)
    return runs


class Lane(NamedTuple):
    """One thread's calls as the pass reads them, in pre-order: each call's `start` time, its
    `exit_event` row (its end is `times[exit_event[i]]`, the events' time column) and
    `depth`."""

    start: Array
    exit_event: Array
    depth: Array
    times: Array


class Grid(NamedTuple):
    """The levels built over `[origin, origin + span)`: `levels` (level numbers, increasing),
    their bucket `widths` (ns) and `scales` (2 ** (level - the first level))."""

    origin: int
    span: int
    levels: Array
    widths: Array
    scales: Array


@njit
def _scan(lane: Lane, grid: Grid, n_depths: int) -> tuple[Any, int, Any, int]:
    """One pass over a thread's calls for every level of `grid`: the wide calls as
    `level index << 40 | row` and the runs keyed by `level index * n_depths + depth`
    (packed by `_emit`), each in the order they close."""
    start, exit_event, depth, times = lane
    origin, span, levels, widths, scales = grid
    n_levels = len(levels)
    k_open = np.full(n_levels * n_depths, -1, dtype=np.int64)  # tile of the open run
    f_open = np.zeros(n_levels * n_depths, dtype=np.int64)  # its buckets, in the tile
    l_open = np.zeros(n_levels * n_depths, dtype=np.int64)
    c_open = np.zeros(n_levels * n_depths, dtype=np.int64)
    cur_tile = np.zeros(n_levels, dtype=np.int64)
    next_t0 = np.zeros(n_levels, dtype=np.int64)  # where the tile after cur_tile starts
    for j in range(n_levels):
        next_t0[j] = tile_start(span, 1, levels[j])
    wide = np.empty(1024, dtype=np.int64)
    runs = np.empty((1024, 2), dtype=np.int64)
    n_wide = 0
    n_runs = 0
    for i in range(len(start)):
        s = start[i]
        e = times[exit_event[i]]
        length = e - s
        # bucket numbers at the first level; at level j they are these times 2**(level j -
        # first level) exactly (widths differ by powers of two), as numpy's division gives
        q = float(s - origin) / widths[0]
        q_last = float(max(e - 1, s) - origin) / widths[0]
        at_end = s - origin >= span  # starts at the very end: in no tile
        for j in range(n_levels):
            width = widths[j]
            qj = q * scales[j]
            if length >= width:
                if n_wide == len(wide):
                    wide = _grow(wide)
                wide[n_wide] = (np.int64(j) << 40) | i  # rows stay below 2**40
                n_wide += 1
                continue
            if at_end:
                continue
            k = cur_tile[j]
            if s - origin >= next_t0[j]:  # moved on: the last tile starting at or before s
                k = _tile_of(s - origin, span, levels[j], k + 1, int(qj) >> SHIFT)
                ntiles = np.int64(1) << levels[j]
                cur_tile[j] = k
                next_t0[j] = tile_start(span, k + 1, levels[j]) if k + 1 < ntiles else span
            base = k << SHIFT
            f = min(max(np.int64(qj) - base, 0), BUCKETS - 1)
            last = min(max(np.int64(q_last * scales[j]) - base, f), BUCKETS - 1)
            o = j * n_depths + depth[i]
            # the first bucket joins the open run of this depth or closes it and opens one;
            # the last one (f or f + 1: the call is narrow) extends it or does the same
            for p in range(2):
                b = f if p == 0 else last
                if k_open[o] == k and b <= l_open[o] + 1:
                    if b > l_open[o]:
                        l_open[o] = b
                    c_open[o] += 1 - p
                    continue
                if k_open[o] >= 0:
                    runs = _emit(runs, n_runs, o, k_open[o], f_open[o], l_open[o], c_open[o])
                    n_runs += 1
                k_open[o] = k
                f_open[o] = b
                l_open[o] = b
                c_open[o] = 1 - p
    for o in range(n_levels * n_depths):
        if k_open[o] >= 0:
            runs = _emit(runs, n_runs, o, k_open[o], f_open[o], l_open[o], c_open[o])
            n_runs += 1
    return wide, n_wide, runs, n_runs


@njit
def _place_wide(wide: Any, n: int, n_levels: int, rows: Any) -> Any:
    """Counting sort of the packed `(level index, row)` pairs `wide[:n]` by level (stable:
    rows stay in order) into `rows`; returns where each level's rows begin."""
    at = np.zeros(n_levels + 1, dtype=np.int64)
    for i in range(n):
        at[(wide[i] >> 40) + 1] += 1
    for j in range(n_levels):
        at[j + 1] += at[j]
    pos = at[:-1].copy()
    mask = (np.int64(1) << 40) - 1
    for i in range(n):
        j = wide[i] >> 40
        rows[pos[j]] = wide[i] & mask
        pos[j] += 1
    return at


@njit
def _place_runs(runs: Any, n: int, n_keys: int, first: Any, last: Any, count: Any) -> Any:
    """Counting sort of the packed runs `runs[:n]` by key (level index * depths + depth;
    stable: time order within one) into the compact columns; returns where each key
    begins."""
    at = np.zeros(n_keys + 1, dtype=np.int64)
    for i in range(n):
        at[(runs[i, 0] >> 32) + 1] += 1
    for key in range(n_keys):
        at[key + 1] += at[key]
    pos = at[:-1].copy()
    low = (np.int64(1) << 32) - 1
    for i in range(n):
        key = runs[i, 0] >> 32
        first[pos[key]] = runs[i, 1] >> SHIFT
        last[pos[key]] = runs[i, 1] & (BUCKETS - 1)
        count[pos[key]] = runs[i, 0] & low
        pos[key] += 1
    return at


@njit
def _cut(
    depth_at: Any, run_first: Any, run_last: Any, run_count: Any, tile: int
) -> tuple[Any, Any, Any, Any]:
    """The runs of `tile`: per depth a binary search for the tile's first bucket."""
    n_depths = len(depth_at) - 1
    lo_bucket = np.int64(tile) << SHIFT
    lows = np.empty(n_depths, dtype=np.int64)
    highs = np.empty(n_depths, dtype=np.int64)
    total = 0
    for d in range(n_depths):
        a = depth_at[d]
        b = depth_at[d + 1]
        lo = a + np.searchsorted(run_first[a:b], lo_bucket)
        hi = a + np.searchsorted(run_first[a:b], lo_bucket + BUCKETS)
        lows[d] = lo
        highs[d] = hi
        total += hi - lo
    depth = np.empty(total, dtype=np.int32)
    first = np.empty(total, dtype=np.int64)
    last = np.empty(total, dtype=np.int64)
    count = np.empty(total, dtype=np.int64)
    at = 0
    for d in range(n_depths):
        for i in range(lows[d], highs[d]):
            depth[at] = d
            first[at] = run_first[i] - lo_bucket
            last[at] = first[at] + run_last[i]
            count[at] = run_count[i]
            at += 1
    return depth, first, last, count


def build(
    start: Array,
    times: Array,
    exit_event: Array,
    depth: Array,
    origin: int,
    span: int,
    levels: list[int],
) -> list[tuple[Array, Array, Array, Array, Array]]:
    """The indexes of `levels` of one thread's calls over `[origin, origin + span)` (the
    bucket width at a level is `span / (BUCKETS << level)`, as `Timeline.bounds`): per level
    `(wide rows, depth_at, run_first, run_last, run_count)`, where the runs of depth `d` are
    `[depth_at[d], depth_at[d + 1])`, `run_first` is the bucket (global at that level),
    `run_last` the run's last bucket minus its first, `run_count` the calls merged."""
    n = len(start)
    n_depths = int(depth.max()) + 1 if n else 1
    n_levels = len(levels)
    lv = np.array(levels, dtype=np.int64)
    wd = np.array([span / float(BUCKETS << level) for level in levels], dtype=np.float64)
    scales = np.array([2.0 ** (level - levels[0]) for level in levels], dtype=np.float64)
    scanned = _scan(
        Lane(start, exit_event, depth, times), Grid(origin, span, lv, wd, scales), n_depths
    )
    wide, n_wide, runs, n_runs = scanned
    row = np.int32 if n < 2**31 else np.int64
    rows = np.empty(n_wide, dtype=row)
    wide_at = _place_wide(wide, n_wide, n_levels, rows)
    del wide
    bucket = np.int32 if max(levels) <= 31 - SHIFT else np.int64  # last bucket < 2**31
    first = np.empty(n_runs, dtype=bucket)
    last = np.empty(n_runs, dtype=np.uint16)  # < BUCKETS
    count = np.empty(n_runs, dtype=row)
    run_at = _place_runs(runs, n_runs, n_levels * n_depths, first, last, count)
    del runs
    out = []
    for j in range(n_levels):
        r0, r1 = int(run_at[j * n_depths]), int(run_at[(j + 1) * n_depths])
        out.append(
            (
                rows[int(wide_at[j]) : int(wide_at[j + 1])],
                run_at[j * n_depths : (j + 1) * n_depths + 1] - r0,
                first[r0:r1],
                last[r0:r1],
                count[r0:r1],
            )
        )
    return out


def cut(
    depth_at: Array, run_first: Array, run_last: Array, run_count: Array, tile: int
) -> tuple[Array, Array, Array, Array]:
    """`(depth, first, last, count)` of the runs of `tile` (buckets counted from its start),
    by depth then time."""
    result: tuple[Array, Array, Array, Array] = _cut(depth_at, run_first, run_last, run_count, tile)
    return result


def load() -> None:
    """Load every kernel's machine code (numba's cache; compiled the first time) on tiny
    inputs of the types a session passes, so the first index a tile needs does not wait for
    it (about 0.1 s after the 0.15 s import)."""
    start = np.zeros(2, dtype=np.int64)
    times = np.array([0, 5], dtype=np.int64)
    exit_event = np.array([1, 1], dtype=np.int32)
    depth = np.array([0, 1], dtype=np.int32)
    built = build(start, times, exit_event, depth, 0, 10, [0, 1, 2])
    cut(*built[0][1:], 0)
