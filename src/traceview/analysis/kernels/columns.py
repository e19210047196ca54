"""The grouped arguments the compiled kernels take: named tuples of the columns they read (the
call table's, the events' times, the rows a pass covers), so no kernel takes a long list of
loose arrays. numba passes a named tuple of arrays into a kernel as one value, at no cost.

Plain numpy: importing this module does not import numba, so the call table can hand its
columns over (`CallTable.columns`) without paying for it. The classes live at module level
in a module that stays importable: numba's on-disk cache names them in its index.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]
Ints = npt.NDArray[Any]


class Calls(NamedTuple):
    """A call table's stored columns (`CallTable`: pre-order per thread, `parent[i] < i`, -1
    for roots, the subtree of `i` is `[i, subtree_end[i])`, times at the event rows
    `enter_event`/`exit_event`, `flags` bits of analysis/pairing.py); the compiled pairing
    fills them."""

    method: Ints
    depth: Ints
    parent: Ints
    subtree_end: Ints
    enter_event: Ints
    exit_event: Ints
    flags: Ints


class Events(NamedTuple):
    """The event columns the pairing reads, in file order: thread row, action, method row."""

    thread: Ints
    action: Ints
    method: Ints


class Times(NamedTuple):
    """The events' time columns of the clocks a pass sums (`n` of them, 0 to 2, in the table's
    clock order); a missing one is an empty column, never read."""

    n: int
    first: I64
    second: I64

    @staticmethod
    def of(columns: Sequence[I64]) -> Times:
        """The time columns given (at most two), the missing ones empty."""
        none = np.zeros(0, dtype=np.int64)
        padded = [*columns[:2], none, none]
        return Times(min(len(columns), 2), padded[0], padded[1])


class Cut(NamedTuple):
    """The rows a pass covers and what it keeps of them (`ranges.Segments`): segment j is rows
    `[lo[j], hi[j])` of thread row `thread[j]`. With `clip`, only the calls overlapping
    `[bounds[j, 0], bounds[j, 1])` on the range's clock (`range_times`, the events' time
    column of that clock) count, each with its time clipped to `[bounds[j, 2], bounds[j, 3]]`
    on the first clock of `Times` and `[bounds[j, 4], bounds[j, 5]]` on the second. Without,
    every call counts whole (`range_times` empty)."""

    lo: I64
    hi: I64
    thread: I64
    bounds: I64
    clip: bool
    range_times: I64


class Pairing(NamedTuple):
    """A pairing pass's state per thread row (`kernels.pairing.pair`): `skip` (threads not
    this pass's, or whose exit named another method), the calls left open at the end, the
    calls exited by an unroll, and the stack heights and rows used as it goes."""

    skip: npt.NDArray[np.bool_]
    still_open: I64
    unroll: I64
    top: I64
    nxt: I64


class Table(NamedTuple):
    """The hash table of kernels/hashing.py: `slots` (row numbers, -1 empty), `keys` (a row's
    key is its first two columns) and `sums`, for `len(keys)` rows."""

    slots: Ints
    keys: Ints
    sums: I64


class Clocks(NamedTuple):
    """The events' time columns summed (`n` of them, 0 to 2; a missing one empty)."""

    times0: I64
    times1: I64
    n: int


class Threads(NamedTuple):
    """What a pass knows of each thread row: `counts` (`walk.counts_of`), the
    methods of its frames open when tracing began (`direct.open_at_start` and their offsets), its
    slot (-1: not this worker's, or failed), its results (calls, failed, open, unroll) and
    `ends`: the times of its first record on each clock, then of its last (written as they
    come); `marks`: the first and last records of the worker's threads in order, then a
    record past any."""

    counts: I64
    synth_of: I64
    synth_at: I64
    slot_of: I64
    out: I64
    ends: I64
    marks: I64


class Stacks(NamedTuple):
    """Every thread's stack of open calls, thread `t`'s part `[base[s], base[s] + top[s])`
    of the columns for its slot `s`: each open call's method, recursion bit, edge row and
    start on each clock; `on_stack[s * n_methods + m]` counts method `m`'s open calls (empty
    when the stacks are searched instead)."""

    base: I64
    top: I64
    method: I64
    recursive: npt.NDArray[np.bool_]
    edge: I64
    t0: I64
    t1: I64
    on_stack: npt.NDArray[np.int32]


class Walk(NamedTuple):
    """One worker's pass: its threads, their stacks and where it is (`cursor`: the edges
    counted, the next record of the chunk, then the next open-at-start frame to enter
    (thread, depth) and how many are left, and the next of `marks`)."""

    threads: Threads
    stacks: Stacks
    cursor: I64


__all__ = [
    "Calls",
    "Clocks",
    "Cut",
    "Events",
    "Pairing",
    "Stacks",
    "Table",
    "Threads",
    "Times",
    "Walk",
]


class Lane(NamedTuple):
    """One thread's calls as the timeline's level pass reads them (kernels/levels.py), in
    pre-order: each call's `start` time, its `exit_event` row (its end is
    `times[exit_event[i]]`, the events' time column) and `depth`."""

    start: Ints
    exit_event: Ints
    depth: Ints
    times: I64


class Grid(NamedTuple):
    """The timeline levels a pass builds over `[origin, origin + span)`: `levels` (level
    numbers, increasing), their bucket `widths` (ns) and `scales` (2 ** (level - the first
    level))."""

    origin: int
    span: int
    levels: I64
    widths: npt.NDArray[np.float64]
    scales: npt.NDArray[np.float64]


class Open(NamedTuple):
    """The level pass's state between its calls, per (level index, depth): the open run's
    tile (-1: none), first and last bucket in the tile and calls; per level index the tile
    of the last call and where the next tile starts (set by the pass's first call)."""

    tile: I64
    first: I64
    last: I64
    calls: I64
    cur_tile: I64
    next_t0: I64

    @staticmethod
    def empty(n_levels: int, n_depths: int) -> Open:
        n = n_levels * n_depths
        z = [np.zeros(n, dtype=np.int64) for _ in range(3)]
        lv = [np.zeros(n_levels, dtype=np.int64) for _ in range(2)]
        return Open(np.full(n, -1, dtype=np.int64), *z, *lv)
