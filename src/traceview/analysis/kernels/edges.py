"""Compiled kernels (numba) behind the profile of a call table and time ranges
(analysis/ranges.py): the profile's edges of whole threads or of the rows near a range, each
call clipped to it as it is read, and the two rules every pass over a range shares (`kept`,
`call_time`; kernels/merging.py uses them for the trees). They read the call table's columns
and the events' times where they are, so no call-sized column is made.

Imported lazily, by the functions that run a kernel (numba costs ~0.2 s to import).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.kernels.columns import Calls, Cut, Times
from traceview.analysis.kernels.hashing import Table, grown, row_of
from traceview.analysis.kernels.jit import njit
from traceview.analysis.pairing import RECURSIVE

I64 = npt.NDArray[np.int64]
Ints = npt.NDArray[Any]

FIRST_EDGES = 1024  # initial edge capacity; doubled as needed


@njit
def kept(s: int, e: int, lo: int, hi: int) -> bool:
    """Whether a call from `s` to `e` overlaps [lo, hi) (`ranges.overlapping`)."""
    return (s < hi and e > lo) or (s == e and lo <= s < hi)


@njit
def call_time(times: I64, enter: int, leave: int, clip: bool, lo: int, hi: int) -> int:
    """A call's time on one clock (`times` at its entry and exit event rows), with both ends
    clipped to [lo, hi] (`hi >= lo`) when `clip`."""
    if not clip:
        return int(times[leave] - times[enter])
    return int(min(max(times[leave], lo), hi) - min(max(times[enter], lo), hi))


@njit
def count_edges(
    calls: Calls, cut: Cut, times: Times, n_methods: int, n_threads: int
) -> tuple[I64, I64, I64]:
    """The profile edges of the calls of `cut`'s segments, each call counted as `cut` says
    (clipped to its segment's bounds or whole), its time summed on `times`' clocks.

    An edge is (thread, the caller's bin, the call's bin), a bin being `method * 2 +
    recursive` and the caller's -1 for a root; its key is `(caller + 1) * 2 * n_methods +
    callee`, found with its thread in a hash table (kernels/hashing.py). Returns each edge's
    (key, thread), its sums (calls, time on the first clock, on the second) and the calls
    counted per thread."""
    table = Table(
        np.full(2 * FIRST_EDGES, -1, dtype=np.int64),
        np.empty((FIRST_EDGES, 2), dtype=np.int64),
        np.zeros((FIRST_EDGES, 3), dtype=np.int64),
    )
    counted = np.zeros(n_threads, dtype=np.int64)
    k = 0
    for j in range(len(cut.lo)):
        i = cut.lo[j]
        while i < cut.hi[j]:
            i, k, n = _edge_rows(i, j, calls, cut, times, table, k, 2 * n_methods)
            counted[cut.thread[j]] += n
            if k == len(table.keys):  # full: twice the room
                table = grown(table, k)
    return table.keys[:k].copy(), table.sums[:k].copy(), counted


@njit
def _edge_rows(
    i: int, j: int, calls: Calls, cut: Cut, times: Times, table: Table, k: int, width: int
) -> tuple[int, int, int]:
    """Count rows i.. of segment j until its end or until the edge table is full; return
    where it stopped, the edge count and the calls counted. Consecutive calls through one
    edge (a loop calling one method) find it without a look-up."""
    parent, method, flags = calls.parent, calls.method, calls.flags
    enter, leave = calls.enter_event, calls.exit_event
    slots, keys, sums = table
    clip, range_times = cut.clip, cut.range_times
    end, thread, b = cut.hi[j], cut.thread[j], cut.bounds[j]
    n = 0
    last_key, last_edge = -1, -1
    while i < end and k < len(keys):
        if clip and not kept(range_times[enter[i]], range_times[leave[i]], b[0], b[1]):
            i += 1
            continue
        n += 1
        p = parent[i]
        caller = -1 if p < 0 else method[p] * 2 + (1 if flags[p] & RECURSIVE else 0)
        key = (caller + 1) * width + method[i] * 2 + (1 if flags[i] & RECURSIVE else 0)
        if key == last_key:
            edge = last_edge
        else:
            edge = row_of(slots, keys, k, key, thread)
            if edge == k:
                k += 1
            last_key, last_edge = key, edge
        sums[edge, 0] += 1
        if times.n > 0:
            sums[edge, 1] += call_time(times.first, enter[i], leave[i], clip, b[2], b[3])
        if times.n > 1:
            sums[edge, 2] += call_time(times.second, enter[i], leave[i], clip, b[4], b[5])
        i += 1
    return i, k, n


def load() -> None:
    """Load the kernels' machine code (numba's cache; compiled the first time) on tiny inputs
    of the types a session passes, so the first range does not wait for it."""
    one = np.array([0], dtype=np.int32)
    calls = Calls(one, one, np.array([-1], np.int32), one + 1, one, one + 1, np.zeros(1, np.uint8))
    times = np.array([0, 5], dtype=np.int64)
    bounds = np.array([[0, 10, 0, 10, 0, 10]], dtype=np.int64)
    rows = np.array([0], dtype=np.int64)
    count_edges(calls, Cut(rows, rows + 1, rows, bounds, True, times), Times.of([times] * 2), 1, 1)
