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

from traceview.analysis.kernels.jit import njit

I64 = npt.NDArray[np.int64]
Ints = npt.NDArray[Any]

FIRST_EDGES = 1024  # initial edge capacity; doubled as needed
_MIX = -7046029254386353131  # 0x9E3779B97F4A7C15 as int64 (Fibonacci hashing)


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
    lo: I64,
    hi: I64,
    thread: I64,
    bounds: I64,
    parent: Ints,
    method: Ints,
    flags: Ints,
    enter: Ints,
    leave: Ints,
    clip: bool,
    range_times: I64,
    times0: I64,
    times1: I64,
    n_clocks: int,
    n_methods: int,
    n_threads: int,
) -> tuple[I64, I64, I64]:
    """The profile edges of the calls in rows [lo[j], hi[j]) (segment j of thread row
    `thread[j]`); with `clip`, only those overlapping [bounds[j, 0], bounds[j, 1]) on
    `range_times`' clock, each with its time clipped to [bounds[j, 2], bounds[j, 3]] on
    `times0` and [bounds[j, 4], bounds[j, 5]] on `times1`.

    An edge is (thread, the caller's bin, the call's bin), a bin being `method * 2 +
    recursive` and the caller's -1 for a root; its key is `(caller + 1) * 2 * n_methods +
    callee`, found with its thread in an open-addressing hash table (linear probing, at most
    half full). Returns each edge's (key, thread), its sums (calls, time on the first clock,
    on the second) and the calls counted per thread."""
    cap = FIRST_EDGES
    slots = np.full(2 * cap, -1, dtype=np.int64)
    keys = np.empty((cap, 2), dtype=np.int64)
    sums = np.zeros((cap, 3), dtype=np.int64)
    counted = np.zeros(n_threads, dtype=np.int64)
    k = 0
    for j in range(len(lo)):
        i = lo[j]
        n = 0
        while i < hi[j]:
            i, k, n = _edge_rows(
                i, hi[j], thread[j], bounds[j], parent, method, flags, enter, leave, clip,
                range_times, times0, times1, n_clocks, 2 * n_methods, slots, keys, sums, k, n,
            )  # fmt: skip
            if k == cap:  # full: twice the room, the slots rebuilt
                cap *= 2
                more_keys = np.empty((cap, 2), dtype=np.int64)
                more_keys[:k] = keys[:k]
                more_sums = np.zeros((cap, 3), dtype=np.int64)
                more_sums[:k] = sums[:k]
                keys, sums = more_keys, more_sums
                slots = np.full(2 * cap, -1, dtype=np.int64)
                for edge in range(k):
                    slots[_slot(slots, keys, keys[edge, 0], keys[edge, 1])] = edge
        counted[thread[j]] += n
    return keys[:k].copy(), sums[:k].copy(), counted


@njit
def _slot(slots: I64, keys: I64, key: int, thread: int) -> int:
    """The slot holding edge (`key`, `thread`), or the empty slot where it belongs."""
    mask = len(slots) - 1
    h = (key * 65_599 + thread) * _MIX
    at = (h ^ (h >> 29)) & mask
    while slots[at] >= 0 and (keys[slots[at], 0] != key or keys[slots[at], 1] != thread):
        at = (at + 1) & mask
    return at


@njit
def _edge_rows(
    i: int,
    end: int,
    thread: int,
    b: I64,
    parent: Ints,
    method: Ints,
    flags: Ints,
    enter: Ints,
    leave: Ints,
    clip: bool,
    range_times: I64,
    times0: I64,
    times1: I64,
    n_clocks: int,
    width: int,
    slots: I64,
    keys: I64,
    sums: I64,
    k: int,
    n: int,
) -> tuple[int, int, int]:
    """Count rows i.. until `end` or until the edge table is full; return where it stopped,
    the edge count and the calls counted. Consecutive calls through one edge (a loop calling
    one method) find it without a look-up."""
    last_key, last_edge = -1, -1
    while i < end and k < len(keys):
        if clip and not kept(range_times[enter[i]], range_times[leave[i]], b[0], b[1]):
            i += 1
            continue
        n += 1
        p = parent[i]
        caller = -1 if p < 0 else method[p] * 2 + (flags[p] & 1)
        key = (caller + 1) * width + method[i] * 2 + (flags[i] & 1)
        if key == last_key:
            edge = last_edge
        else:
            at = _slot(slots, keys, key, thread)
            edge = slots[at]
            if edge < 0:
                edge = k
                slots[at] = k
                keys[k, 0] = key
                keys[k, 1] = thread
                k += 1
            last_key, last_edge = key, edge
        sums[edge, 0] += 1
        if n_clocks > 0:
            sums[edge, 1] += call_time(times0, enter[i], leave[i], clip, b[2], b[3])
        if n_clocks > 1:
            sums[edge, 2] += call_time(times1, enter[i], leave[i], clip, b[4], b[5])
        i += 1
    return i, k, n


def load() -> None:
    """Load the kernels' machine code (numba's cache; compiled the first time) on tiny inputs
    of the types a session passes, so the first range does not wait for it."""
    rows = np.array([0], dtype=np.int64), np.array([1], dtype=np.int64), np.zeros(1, np.int64)
    bounds = np.array([[0, 10, 0, 10, 0, 10]], dtype=np.int64)
    i32 = np.array([0], dtype=np.int32)
    parent = np.array([-1], dtype=np.int32)
    times = np.array([0, 5], dtype=np.int64)
    ev = np.array([0], dtype=np.int32), np.array([1], dtype=np.int32)
    flags = np.zeros(1, np.uint8)
    count_edges(*rows, bounds, parent, i32, flags, *ev, True, times, times, times, 2, 1, 1)
