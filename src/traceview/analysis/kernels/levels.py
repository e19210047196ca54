"""Compiled passes behind the timeline's level indexes (analysis/layout/levelindex.py):
building the indexes of one thread's calls (any number of levels in one O(n) pass), and
cutting one tile's runs out of them. A tile with few calls is answered by building the index
of its own calls alone: one rule for every tile.

A level index holds the wide calls (at least one bucket wide) as local rows, and the narrow
ones merged per depth into runs of adjacent busy buckets, grouped by depth and in time order
within a depth. A narrow call belongs to the tile its start falls in (`t0 <= start < t1`, the
exact integer tile bounds) and makes its first and last bucket busy, clipped to that tile:
exactly what a tile's own calls give (tests/support/tile_runs.py, the numpy oracle). Calls at
one depth never overlap, so in pre-order their buckets only move forward: each depth keeps one
open run, and each depth's runs close in time order. The pass appends closed runs (16 bytes
each) and wide rows (8) to buffers its caller grows; counting sorts by level and depth then
place them in the compact columns. Ends are gathered from the events' time column as the pass
goes: no copy of the calls. Nothing here allocates: every kernel runs as native code
(kernels/native.py), so drawing a timeline imports no numba.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.kernels.columns import Grid, Lane, Open
from traceview.analysis.kernels.jit import njit
from traceview.analysis.kernels.tiling import BUCKETS, SHIFT

Array = npt.NDArray[Any]


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
def _put(runs: Any, n: int, key: int, tile: int, first: int, last: int, calls: int) -> None:
    """Write closed run `n`, packed in two int64 (`key << 32 | calls`, `bucket << 10 | last -
    first`: keys and counts stay below 2**31, buckets below 2**51)."""
    runs[n, 0] = (key << 32) | calls
    runs[n, 1] = (((tile << SHIFT) + first) << SHIFT) | (last - first)


@njit
def scan(lane: Lane, grid: Grid, state: Open, wide: Any, runs: Any, at: Any) -> None:
    """One pass over a thread's calls for every level of `grid`, from call `at[0]` with
    `at[1]` wide rows in `wide` and `at[2]` runs in `runs`: the wide calls as `level index
    << 40 | row` and the runs keyed by `level index * depths + depth` (packed by `_put`),
    each in the order they close; once every call is read, the runs still open close too
    (`at[3]` set). Stops before a call whose rows might not fit (each call writes at most
    one wide row or two runs per level; the last closing, a run per level and depth): the
    caller grows the buffers and calls again, `state` holding the pass's place."""
    start, exit_event, depth, times = lane
    origin, span, levels, widths, scales = grid
    k_open, f_open, l_open, c_open, cur_tile, next_t0 = state
    n_levels = len(levels)
    n_keys = len(k_open)
    i, n_wide, n_runs = at[0], at[1], at[2]
    if i == 0:  # (the first call: where each level's second tile starts)
        for j in range(n_levels):
            next_t0[j] = tile_start(span, 1, levels[j])
    while i < len(start):
        if n_wide + n_levels > len(wide) or n_runs + 2 * n_levels > len(runs):
            break
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
            o = j * (n_keys // n_levels) + depth[i]
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
                    _put(runs, n_runs, o, k_open[o], f_open[o], l_open[o], c_open[o])
                    n_runs += 1
                k_open[o] = k
                f_open[o] = b
                l_open[o] = b
                c_open[o] = 1 - p
        i += 1
    if i == len(start) and at[3] == 0 and n_runs + n_keys <= len(runs):
        for o in range(n_keys):
            if k_open[o] >= 0:
                _put(runs, n_runs, o, k_open[o], f_open[o], l_open[o], c_open[o])
                n_runs += 1
                k_open[o] = -1
        at[3] = 1
    at[0], at[1], at[2] = i, n_wide, n_runs


@njit
def place_wide(wide: Any, n: int, rows: Any, at: Any, pos: Any) -> None:
    """Counting sort of the packed `(level index, row)` pairs `wide[:n]` by level (stable:
    rows stay in order) into `rows`; `at` (zeros, a row per level and one more) receives
    where each level's rows begin (`pos`: scratch, a row per level)."""
    n_levels = len(at) - 1
    for i in range(n):
        at[(wide[i] >> 40) + 1] += 1
    for j in range(n_levels):
        at[j + 1] += at[j]
        pos[j] = at[j]
    mask = (np.int64(1) << 40) - 1
    for i in range(n):
        j = wide[i] >> 40
        rows[pos[j]] = wide[i] & mask
        pos[j] += 1


@njit
def place_runs(runs: Any, n: int, first: Any, last: Any, count: Any, at: Any, pos: Any) -> None:
    """Counting sort of the packed runs `runs[:n]` by key (level index * depths + depth;
    stable: time order within one) into the compact columns; `at` (zeros, a row per key and
    one more) receives where each key begins (`pos`: scratch, a row per key)."""
    n_keys = len(at) - 1
    for i in range(n):
        at[(runs[i, 0] >> 32) + 1] += 1
    for key in range(n_keys):
        at[key + 1] += at[key]
        pos[key] = at[key]
    low = (np.int64(1) << 32) - 1
    for i in range(n):
        key = runs[i, 0] >> 32
        first[pos[key]] = runs[i, 1] >> SHIFT
        last[pos[key]] = runs[i, 1] & (BUCKETS - 1)
        count[pos[key]] = runs[i, 0] & low
        pos[key] += 1


@njit
def _lower(a: Any, lo: Any, hi: Any, x: Any) -> Any:
    """The first index in [lo, hi) of sorted `a` whose value is at least `x` (hi if none)."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit
def cut_bounds(depth_at: Any, run_first: Any, tile: int, lows: Any, highs: Any) -> int:
    """The runs of `tile`, per depth `d` `[lows[d], highs[d])` (a binary search for the
    tile's first bucket and the next tile's); returns how many in all."""
    lo_bucket = np.int64(tile) << SHIFT
    total = 0
    for d in range(len(depth_at) - 1):
        a, b = depth_at[d], depth_at[d + 1]
        lows[d] = _lower(run_first, a, b, lo_bucket)
        highs[d] = _lower(run_first, lows[d], b, lo_bucket + BUCKETS)
        total += highs[d] - lows[d]
    return total


@njit
def cut_fill(
    runs: tuple[Any, Any, Any], tile: int, lows: Any, highs: Any, out: tuple[Any, Any, Any, Any]
) -> None:
    """The runs `cut_bounds` found (`runs`: first bucket, last minus first, calls) written
    by depth then time into `out`: depth, first and last bucket from the tile's start, calls."""
    run_first, run_last, run_count = runs
    depth, first, last, count = out
    lo_bucket = np.int64(tile) << SHIFT
    at = 0
    for d in range(len(lows)):
        for i in range(lows[d], highs[d]):
            depth[at] = d
            first[at] = run_first[i] - lo_bucket
            last[at] = first[at] + run_last[i]
            count[at] = run_count[i]
            at += 1
