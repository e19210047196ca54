"""A thread's part of a profile: its edges (caller -> callee: calls and inclusive ns per
clock, keyed also by both ends' recursion) and totals, gathered from the compiled passes'
counts (`edge_parts`); `profile.merge_parts` adds the parts of a selection up. `sum_by`: exact
int64 sums per index.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
_EXACT = float(1 << 52)  # float64 adds integers exactly below 2**53; a margin for the check
_SHIFT = 26
_LOW = (1 << _SHIFT) - 1


@dataclass(frozen=True, eq=False)
class EdgeTable:
    """Caller -> callee aggregates, one row per (parent, child, parent_recursive,
    child_recursive). `parent` is -1 for (toplevel). `calls` counts calls through the edge,
    `incl[clock]` sums their inclusive ns."""

    parent: npt.NDArray[np.int32]
    child: npt.NDArray[np.int32]
    parent_recursive: Bools
    child_recursive: Bools
    calls: I64
    incl: dict[str, I64]

    def __len__(self) -> int:
        return len(self.child)


@dataclass(frozen=True, eq=False)
class ThreadPart:
    """One thread's statistics, sparse: its edges (method rows) and its totals per clock."""

    thread: int
    edges: EdgeTable
    totals: dict[str, int]
    n_calls: int


def sum_by(index: npt.NDArray[np.integer], values: npt.NDArray[np.integer], n: int) -> I64:
    """Σ values per index as exact int64. `np.bincount` sums in float64, exact while every
    partial sum stays below 2**53 (104 days of ns): checked on Σ|values| first; past it the
    values are split into a low part (26 bits, exact) and a high part summed the same way."""
    if not len(index):
        return np.zeros(n, dtype=np.int64)
    v = np.asarray(values, dtype=np.int64)
    if float(np.abs(v).sum(dtype=np.float64)) < _EXACT:
        return np.rint(np.bincount(index, weights=v, minlength=n)).astype(np.int64)
    low = np.rint(np.bincount(index, weights=v & _LOW, minlength=n)).astype(np.int64)
    return (sum_by(index, v >> _SHIFT, n) << _SHIFT) + low


def edge_parts(
    keys: I64,
    sums: I64,
    counted: I64,
    threads: Sequence[tuple[int, dict[str, int]]],
    clocks: Sequence[str],
    n_methods: int,
) -> list[ThreadPart]:
    """The parts of `threads` ((thread row, its totals per clock), in order) from counted
    edges: `keys` rows (edge key, thread row) as the compiled passes make them (`(caller bin +
    1) * 2 * n_methods + callee bin`, a bin `method * 2 + recursive`), possibly repeated (the
    pieces of one thread counted apart), `sums` rows (calls, time on each of `clocks`)
    and `counted` calls per thread row. Each part's edges come by caller bin, then callee
    bin."""
    # one row per (thread, key), in that order, the pieces' sums added
    order = np.lexsort((keys[:, 0], keys[:, 1]))
    keys, sums = keys[order], sums[order]
    new = np.ones(len(keys), dtype=bool)
    new[1:] = (keys[1:] != keys[:-1]).any(axis=1)
    starts = np.flatnonzero(new)
    keys = keys[starts]
    sums = np.add.reduceat(sums, starts, axis=0) if len(starts) else sums
    caller, callee = np.divmod(keys[:, 0], 2 * n_methods)
    caller -= 1  # -1: (toplevel)
    rows = [t for t, _ in threads]
    bounds_of = np.searchsorted(keys[:, 1], rows, side="left")
    ends_of = np.searchsorted(keys[:, 1], rows, side="right")
    parts = []
    for (t, totals), a, b in zip(threads, bounds_of, ends_of, strict=True):
        up, down, got = caller[a:b], callee[a:b], sums[a:b]
        edges = EdgeTable(
            parent=np.where(up >= 0, up >> 1, -1).astype(np.int32),
            child=(down >> 1).astype(np.int32),
            parent_recursive=(up >= 0) & (up & 1 == 1),
            child_recursive=(down & 1).astype(bool),
            calls=got[:, 0].copy(),
            incl={c: got[:, 1 + i].copy() for i, c in enumerate(clocks)},
        )
        parts.append(ThreadPart(t, edges, totals, int(counted[t])))
    return parts
