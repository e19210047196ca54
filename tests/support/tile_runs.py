"""The numpy rule the timeline once used for a tile of few calls (`Timeline._runs`), now the
oracle of the level pass (kernels/levels.py), which answers every tile: narrow calls (local
rows) merged into per-depth runs of busy buckets of one tile, each call making its first and
last bucket busy (clipped to the tile), a run counting the calls whose first bucket is in it.
Buckets are counted from `origin` at `width` ns each, minus `offset` (the tile's first)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from traceview.analysis.kernels.tiling import BUCKETS

I64 = npt.NDArray[np.int64]


def runs(
    start: I64, end: I64, depth: npt.NDArray[np.integer], origin: int, offset: int, width: float
) -> tuple[I64, I64, I64, I64]:
    """`(depth, first, last, count)` of the runs of narrow calls (their start and end ns and
    depth), by depth then time."""
    if not len(start):
        z = np.zeros(0, dtype=np.int64)
        return z, z, z, z
    first = ((start - origin) / width).astype(np.int64) - offset
    last = ((np.maximum(end - 1, start) - origin) / width).astype(np.int64)
    np.clip(first, 0, BUCKETS - 1, out=first)
    last = np.clip(last - offset, first, BUCKETS - 1)
    d = depth.astype(np.int64)
    key_first = d * BUCKETS + first
    busy = np.unique(np.concatenate([key_first, d * BUCKETS + last]))
    new = np.ones(len(busy), dtype=bool)
    new[1:] = (busy[1:] != busy[:-1] + 1) | (busy[1:] % BUCKETS == 0)
    run_of_busy = np.cumsum(new) - 1
    heads = np.flatnonzero(new)
    tails = np.append(heads[1:], len(busy)) - 1
    count = np.bincount(run_of_busy[np.searchsorted(busy, key_first)], minlength=len(heads))
    return busy[heads] // BUCKETS, busy[heads] % BUCKETS, busy[tails] % BUCKETS, count
