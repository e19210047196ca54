"""The open-addressing hash table of the compiled kernels that count into distinct keys (a
profile's edges, kernels/edges.py; a merged tree's nodes, kernels/merging.py): rows of
`keys` found by their first two columns, rows numbered in the order they were added.

A `Table` is three arrays that double together when full: `slots` (twice the rows, a power
of two; -1 empty) holding row numbers, `keys` (rows of at least two key columns, more
columns the caller's) and `sums` (the caller's counts per row). Linear probing from a
Fibonacci hash of the pair, the table at most half full. Row numbers never depend on the
hashing, only on the order keys arrive, so the kernels' results do not either.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.kernels.columns import Table
from traceview.analysis.kernels.jit import njit

Ints = npt.NDArray[Any]
I64 = npt.NDArray[np.int64]

MIX = -7046029254386353131  # 0x9E3779B97F4A7C15 as int64 (Fibonacci hashing)


@njit
def slot(slots: Ints, keys: Ints, a: int, b: int) -> int:
    """The slot holding the row whose key is (`a`, `b`), or the empty slot where it
    belongs."""
    mask = len(slots) - 1
    h = (a * 1_000_003 + b) * MIX
    at = (h ^ (h >> 29)) & mask
    while True:
        row = slots[at]
        if row < 0 or (keys[row, 0] == a and keys[row, 1] == b):
            return at
        at = (at + 1) & mask


@njit
def row_of(slots: Ints, keys: Ints, k: int, a: int, b: int) -> int:
    """The row of key (`a`, `b`) in a table holding `k` rows; a new key becomes row `k` (its
    key columns written: the caller makes room first, fills its other columns and counts
    it)."""
    at = slot(slots, keys, a, b)
    row = slots[at]
    if row >= 0:
        return int(row)
    slots[at] = k
    keys[k, 0] = a
    keys[k, 1] = b
    return k


@njit
def grown(table: Table, k: int) -> Table:
    """`table` (holding `k` rows) with twice the room, its slots rebuilt."""
    slots, keys, sums = table
    cap = 2 * len(keys)
    more_slots = np.empty(2 * cap, dtype=slots.dtype)
    more_slots.fill(-1)
    more_keys = np.empty((cap, keys.shape[1]), dtype=keys.dtype)
    more_sums = np.zeros((cap, sums.shape[1]), dtype=sums.dtype)
    for row in range(k):  # loops: slice copies cost more to compile than they save here
        for c in range(keys.shape[1]):
            more_keys[row, c] = keys[row, c]
        for c in range(sums.shape[1]):
            more_sums[row, c] = sums[row, c]
    refill(more_slots, more_keys, k)
    return Table(more_slots, more_keys, more_sums)


@njit
def refill(slots: Ints, keys: Ints, k: int) -> None:
    """Point empty `slots` (all -1) at the `k` rows of `keys`."""
    for row in range(k):
        slots[slot(slots, keys, keys[row, 0], keys[row, 1])] = row


__all__ = ["Table", "grown", "refill", "row_of", "slot"]
