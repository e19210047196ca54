"""Compiled (numba) whole-trace profile straight from the events, for `analysis/direct.py`
(`traceview -r`, `stats`, `info`, `dmtracedump`): no call table, one pass over the records in
file order, as dmtracedump itself reads them.

Each thread keeps a stack of its open calls (method, recursion bit, the edge it counts into,
its start on each clock). An enter finds its edge — (caller bin, callee bin) of the thread, a
bin being `method * 2 + recursive`, the caller -1 for a root — in the kernels' hash table
(kernels/hashing.py, keyed as kernels/edges.py keys it), an exit adds one call and its
inclusive time on each clock to that edge; a call is recursive when its method is already on
the thread's stack (counted per thread and method). Frames open when tracing began (exits below
the stack's bottom, `synth`) are on the stack from the start, their methods known from a first
look (`synth_methods`), entered at the thread's first record; what is still open at the end is
closed by its last. A thread whose exit names another method is marked failed and left to the
repairing numpy path. The threads are split between workers (`mine`), each reading every record
and keeping its own.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from traceview.analysis.kernels.hashing import Table, grown, row_of
from traceview.analysis.kernels.jit import njit

I64 = npt.NDArray[np.int64]
Ints = npt.NDArray[Any]

ENTER, UNROLL_ACTION = 0, 2  # analysis/pairing.py
FIRST_EDGES = 1024


@njit
def synth_methods(thread: Ints, action: Ints, method: Ints, counts: I64, at: I64) -> I64:
    """The methods of the frames open when tracing began: for thread `t`, `out[at[t] + d]` is
    the method of its frame `d` (0 outermost), the exit that first takes the thread's balance
    of enters over exits down to `d - s` (`s = -counts[t, 2]` frames)."""
    out = np.zeros(at[-1], dtype=np.int64)
    n_threads = len(counts)
    balance = np.zeros(n_threads, dtype=np.int64)
    lowest = np.zeros(n_threads, dtype=np.int64)
    left = 0
    for t in range(n_threads):
        left += -counts[t, 2]
    for r in range(len(thread)):
        if left == 0:
            break
        t = thread[r]
        if counts[t, 2] == 0:
            continue
        if action[r] == ENTER:
            balance[t] += 1
        else:
            balance[t] -= 1
            if balance[t] < lowest[t]:
                lowest[t] = balance[t]
                out[at[t] + (balance[t] - counts[t, 2])] = method[r]
                left -= 1
    return out


class Clocks(NamedTuple):
    """The events' time columns summed (`n` of them, 0 to 2; a missing one empty)."""

    times0: I64
    times1: I64
    n: int


class Threads(NamedTuple):
    """What the pass knows of each thread row: `counts` (`kernels.pairing.count`), the
    methods of its frames open when tracing began (`synth_methods` and their offsets), its
    slot (-1: not this worker's) and its results (calls, failed, open, unroll)."""

    counts: I64
    synth_of: I64
    synth_at: I64
    slot_of: I64
    out: I64


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


@njit
def profile_threads(
    events: tuple[Ints, Ints, Ints],
    clocks: Clocks,
    counts: I64,
    mine: npt.NDArray[np.bool_],
    synth: tuple[I64, I64],
    n_methods: int,
    dense: bool,
) -> tuple[I64, I64, I64]:
    """The edges of the threads marked in `mine` (events: thread, action, method columns;
    counts: `kernels.pairing.count`; synth: `synth_methods` and its offsets; `dense`: count
    each thread's open calls per method, else search the stack). Returns the edges' (key,
    thread) rows and sums (calls, time on each clock), and per thread `(calls, failed, open
    at the end, exited by an unroll)`.

    The records are counted by `_count` until the edge table is full, then again with twice
    the room: the table's arrays never change inside the loop over records (an array
    variable assigned in a loop costs two atomic reference counts per iteration)."""
    thread = events[0]
    times0, times1, n_clocks = clocks
    n_threads = len(counts)
    slot_of = np.full(n_threads, -1, dtype=np.int64)
    n_slots = 0
    for t in range(n_threads):
        if mine[t] and counts[t, 0] > 0:
            slot_of[t] = n_slots
            n_slots += 1
    base = np.zeros(n_slots + 1, dtype=np.int64)  # each slot's part of the stacks
    for t in range(n_threads):
        s = slot_of[t]
        if s >= 0:
            base[s + 1] = base[s] - counts[t, 2] + counts[t, 3]
    height = base[n_slots]
    stacks = Stacks(
        base,
        np.zeros(n_slots, dtype=np.int64),
        np.empty(height, dtype=np.int64),
        np.empty(height, dtype=np.bool_),
        np.empty(height, dtype=np.int64),
        np.empty(height, dtype=np.int64),
        np.empty(height, dtype=np.int64),
        np.zeros(n_slots * n_methods if dense else 0, dtype=np.int32),
    )
    out = np.zeros((n_threads, 4), dtype=np.int64)  # calls, failed, open, unroll
    threads = Threads(counts, synth[0], synth[1], slot_of, out)
    table = Table(
        np.full(2 * FIRST_EDGES, -1, dtype=np.int64),
        np.empty((FIRST_EDGES, 2), dtype=np.int64),
        np.zeros((FIRST_EDGES, 3), dtype=np.int64),
    )
    # where `_count` goes on: the next record, then the next open-at-start frame (thread,
    # depth) and how many are left
    cursor = np.zeros(4, dtype=np.int64)
    for t in range(n_threads):
        if slot_of[t] >= 0:
            cursor[3] += -counts[t, 2]
    k = 0
    while True:
        k = _count(events, clocks, threads, stacks, table, k, cursor, n_methods)
        if cursor[0] >= len(thread):
            break
        table = grown(table, k)
    sums = table.sums
    top, st_edge, st_t0, st_t1 = stacks.top, stacks.edge, stacks.t0, stacks.t1
    for t in range(n_threads):  # open at the end: closed by the thread's last record
        s = slot_of[t]
        if s < 0 or out[t, 1]:
            continue
        last = counts[t, 5]
        for at in range(base[s] + top[s] - 1, base[s] - 1, -1):
            edge = st_edge[at]
            sums[edge, 0] += 1
            if n_clocks > 0:
                sums[edge, 1] += times0[last] - st_t0[at]
            if n_clocks > 1:
                sums[edge, 2] += times1[last] - st_t1[at]
            out[t, 0] += 1
            out[t, 2] += 1
    return table.keys[:k].copy(), sums[:k].copy(), out


@njit
def _count(
    events: tuple[Ints, Ints, Ints],
    clocks: Clocks,
    threads: Threads,
    stacks: Stacks,
    table: Table,
    k: int,
    cursor: I64,
    n_methods: int,
) -> int:
    """Count from `cursor` on (see `profile_threads`) until the records end or the table has
    no room for one more edge; returns the edges then in the table, `cursor` updated (its
    record past the last when done). The frames open when tracing began come first (record
    -1, entered at the thread's first record), then every record in file order."""
    thread, action, method = events
    times0, times1, n_clocks = clocks
    counts, synth_of, synth_at, slot_of, out = threads
    base, top, st_method, st_rec, st_edge, st_t0, st_t1, on_stack = stacks
    slots, keys, sums = table
    width = 2 * n_methods
    dense = len(on_stack) > 0
    r, t, d, n_synth = cursor[0] - 1, cursor[1], cursor[2], cursor[3]
    while True:
        if n_synth > 0:  # the next open-at-start frame: thread t, depth d
            while slot_of[t] < 0 or d >= -counts[t, 2]:
                t += 1
                d = 0
            m = synth_of[synth_at[t] + d]
            at_record = counts[t, 4]
            entering = True
        else:
            r += 1
            if r >= len(thread):
                break
            t = thread[r]
            if slot_of[t] < 0 or out[t, 1]:
                continue
            m = method[r]
            at_record = r
            entering = action[r] == ENTER
        s = slot_of[t]
        b = base[s]
        h = top[s]
        if entering:
            if k + 1 >= len(keys):  # full: `profile_threads` grows the table
                cursor[0] = r if n_synth == 0 else 0  # the record to count again
                cursor[1], cursor[2], cursor[3] = t, d, n_synth
                return k
            if n_synth > 0:
                d += 1
                n_synth -= 1
            caller = -1
            if h > 0:
                caller = st_method[b + h - 1] * 2 + (1 if st_rec[b + h - 1] else 0)
            if dense:
                rec = on_stack[s * n_methods + m] > 0
                on_stack[s * n_methods + m] += 1
            else:
                rec = False
                for i in range(b, b + h):
                    if st_method[i] == m:
                        rec = True
                        break
            key = (caller + 1) * width + m * 2 + (1 if rec else 0)
            edge = row_of(slots, keys, k, key, t)
            if edge == k:
                k += 1
            st_method[b + h] = m
            st_rec[b + h] = rec
            st_edge[b + h] = edge
            if n_clocks > 0:
                st_t0[b + h] = times0[at_record]
            if n_clocks > 1:
                st_t1[b + h] = times1[at_record]
            top[s] = h + 1
            continue
        at = b + h - 1
        if st_method[at] != m:
            out[t, 1] = 1
            continue
        edge = st_edge[at]
        sums[edge, 0] += 1
        if n_clocks > 0:
            sums[edge, 1] += times0[r] - st_t0[at]
        if n_clocks > 1:
            sums[edge, 2] += times1[r] - st_t1[at]
        if dense:
            on_stack[s * n_methods + m] -= 1
        top[s] = h - 1
        out[t, 0] += 1
        if action[r] == UNROLL_ACTION:
            out[t, 3] += 1
    cursor[0] = len(thread)
    return k
