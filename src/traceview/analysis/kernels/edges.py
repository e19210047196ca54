"""Compiled kernels (numba) behind the profile of a call table and time ranges
(analysis/ranges.py): the profile's edges of whole threads or of the rows near a range, each
call clipped to it as it is read, and the two rules every pass over a range shares (`kept`,
`call_time`; kernels/merging.py uses them for the trees). They read the call table's columns
and the events' times where they are, so no call-sized column is made. The profile's pass
(`count_into`) runs as native code (kernels/native.py): no numba is imported for it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.kernels.columns import Calls, Cut, Times
from traceview.analysis.kernels.hashing import Table, row_of
from traceview.analysis.kernels.jit import njit
from traceview.analysis.pairing import RECURSIVE

I64 = npt.NDArray[np.int64]
Ints = npt.NDArray[Any]


@njit
def kept(s: int, e: int, lo: int, hi: int) -> bool:
    """Whether a call from `s` to `e` overlaps [lo, hi) (`ranges.overlapping`)."""
    return (s < hi and e > lo) or (s == e and lo <= s < hi)


@njit
def overlapping(
    enter: Ints, leave: Ints, times: I64, lo: int, hi: int, rows: int, out: npt.NDArray[np.bool_]
) -> None:
    """Whether each of the calls `rows`... (their `enter` and `leave` event rows, read on
    `times`) overlaps [lo, hi) (`kept`), written into `out`. Allocates nothing: run as native
    code (analysis/ranges.py `overlapping`)."""
    for i in range(len(out)):
        out[i] = kept(times[enter[rows + i]], times[leave[rows + i]], lo, hi)


@njit
def call_time(times: I64, enter: int, leave: int, clip: bool, lo: int, hi: int) -> int:
    """A call's time on one clock (`times` at its entry and exit event rows), with both ends
    clipped to [lo, hi] (`hi >= lo`) when `clip`."""
    if not clip:
        return int(times[leave] - times[enter])
    return int(min(max(times[leave], lo), hi) - min(max(times[enter], lo), hi))


@njit
def count_into(
    calls: Calls, cut: Cut, times: Times, table: Table, width: int, counted: I64, at: I64
) -> None:
    """Count the profile edges of the calls of `cut`'s segments, each call counted as `cut`
    says (clipped to its segment's bounds or whole), its time summed on `times`' clocks,
    into `table` and `counted` (calls counted per thread row), from segment `at[0]`'s row
    `at[1]` with `at[2]` edges in the table, until every segment is counted (`at[0]` their
    number) or the table is full; `at` is left where it stopped (analysis/profile.py grows
    the table and calls again). Allocates nothing: run as native code (kernels/native.py).

    An edge is (thread, the caller's bin, the call's bin), a bin being `method * 2 +
    recursive` and the caller's -1 for a root; its key is `(caller + 1) * width + callee`
    (`width` twice the methods), found with its thread in the hash table
    (kernels/hashing.py); its sums are its calls and its time on each clock."""
    j, i, k = at[0], at[1], at[2]
    while j < len(cut.lo) and k < len(table.keys):
        i, k, n = _edge_rows(i, j, calls, cut, times, table, k, width)
        counted[cut.thread[j]] += n
        if i >= cut.hi[j]:
            j += 1
            if j < len(cut.lo):
                i = cut.lo[j]
    at[0], at[1], at[2] = j, i, k


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
