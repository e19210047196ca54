"""The timeline's level indexes, built and cut by the native passes of kernels/levels.py (no
numba imported): `build` indexes one thread's calls at any number of levels in one pass, its
buffers grown while the pass says they may not hold the next call; `cut` takes one tile's
runs out of a level's index.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.kernels.columns import Grid, Lane, Open
from traceview.analysis.kernels.native import Native
from traceview.analysis.kernels.tiling import BUCKETS, SHIFT

Array = npt.NDArray[Any]
Index = tuple[Array, Array, Array, Array, Array]  # wide rows, depth_at, first, last, count

_scan = Native("levels", "scan")
_place_wide = Native("levels", "place_wide")
_place_runs = Native("levels", "place_runs")
_cut_bounds = Native("levels", "cut_bounds")
_cut_fill = Native("levels", "cut_fill")


def build(
    start: Array,
    times: Array,
    exit_event: Array,
    depth: Array,
    origin: int,
    span: int,
    levels: list[int],
) -> list[Index]:
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
    state = Open.empty(n_levels, n_depths)
    room = 1024  # rows, doubled while the pass asks for more
    wide = np.empty(room, dtype=np.int64)
    runs = np.empty((room, 2), dtype=np.int64)
    at = np.zeros(4, dtype=np.int64)
    lane, grid = Lane(start, exit_event, depth, times), Grid(origin, span, lv, wd, scales)
    while True:
        _scan(lane, grid, state, wide, runs, at)
        if at[3]:
            break
        if at[1] + n_levels > len(wide):
            wide = _grown(wide, int(at[1]))
        if at[2] + max(2 * n_levels, n_levels * n_depths) > len(runs):
            runs = _grown(runs, int(at[2]), int(at[2]) + n_levels * n_depths)
    n_wide, n_runs = int(at[1]), int(at[2])
    row = np.int32 if n < 2**31 else np.int64
    rows = np.empty(n_wide, dtype=row)
    wide_at = np.zeros(n_levels + 1, dtype=np.int64)
    _place_wide(wide, n_wide, rows, wide_at, np.empty(n_levels, dtype=np.int64))
    del wide
    bucket = np.int32 if max(levels) <= 31 - SHIFT else np.int64  # last bucket < 2**31
    first = np.empty(n_runs, dtype=bucket)
    last = np.empty(n_runs, dtype=np.uint16)  # < BUCKETS
    count = np.empty(n_runs, dtype=row)
    n_keys = n_levels * n_depths
    run_at = np.zeros(n_keys + 1, dtype=np.int64)
    _place_runs(runs, n_runs, first, last, count, run_at, np.empty(n_keys, dtype=np.int64))
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


def _grown(buf: Array, filled: int, least: int = 0) -> Array:
    """`buf` with at least twice (and `least`) the rows, its first `filled` kept."""
    out = np.empty((max(2 * len(buf), least), *buf.shape[1:]), dtype=buf.dtype)
    out[:filled] = buf[:filled]
    return out


def cut(
    depth_at: Array, run_first: Array, run_last: Array, run_count: Array, tile: int
) -> tuple[Array, Array, Array, Array]:
    """`(depth, first, last, count)` of the runs of `tile` (buckets counted from its start),
    by depth then time."""
    n_depths = len(depth_at) - 1
    lows, highs = np.empty(n_depths, dtype=np.int64), np.empty(n_depths, dtype=np.int64)
    total = _cut_bounds(depth_at, run_first, tile, lows, highs)
    out = (
        np.empty(total, dtype=np.int32),
        np.empty(total, dtype=np.int64),
        np.empty(total, dtype=np.int64),
        np.empty(total, dtype=np.int64),
    )
    _cut_fill((run_first, run_last, run_count), tile, lows, highs, out)
    return out
