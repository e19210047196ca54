"""Compiled (numba) whole-trace profile straight from the events, for `analysis/direct.py`
(`traceview -r`, `stats`, `info`, `dmtracedump`): no call table, one pass over the records in
file order, as dmtracedump itself reads them, fed the whole event columns at once or chunk by
chunk as a reader decodes them (`start`, `feed`, `finish`: nothing is kept of a chunk).

Each thread keeps a stack of its open calls (method, recursion bit, the edge it counts into,
its start on each clock). An enter finds its edge — (caller bin, callee bin) of the thread, a
bin being `method * 2 + recursive`, the caller -1 for a root — in the kernels' hash table
(kernels/hashing.py, keyed as kernels/edges.py keys it), an exit adds one call and its
inclusive time on each clock to that edge; a call is recursive when its method is already on
the thread's stack (counted per thread and method). Frames open when tracing began (exits below
the stack's bottom, `synth`) are on the stack from the start, their methods known from a first
look (`kernels.pairing.count_more`), entered at the thread's first record (their start times
are written when it comes); what is still open at the end is closed by its last (whose times
the pass keeps). A thread whose exit names another method is marked failed and left to the
repairing numpy path. The threads are split between workers (`mine`), each reading every record
and keeping its own.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.kernels.columns import Clocks, Stacks, Threads, Walk
from traceview.analysis.kernels.hashing import Table, grown, row_of
from traceview.analysis.kernels.jit import njit

I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
Ints = npt.NDArray[Any]

ENTER, UNROLL_ACTION = 0, 2  # analysis/pairing.py
FIRST_EDGES = 1024


@njit
def start(
    counts: I64,
    mine: npt.NDArray[np.bool_],
    synth: tuple[I64, I64],
    n_methods: int,
    dense: bool,
    marks: I64,
) -> Walk:
    """A pass over the threads marked in `mine` (counts: `kernels.pairing.count` of every
    record; synth: the methods of the frames open when tracing began and their offsets,
    `direct.open_at_start`; `dense`: count each thread's open calls per method, else search
    the stack; marks: the first and last record rows of those threads, sorted, then the
    largest int64), before its first record."""
    n_threads = len(counts)
    slot_of = np.full(n_threads, -1, dtype=np.int64)
    n_slots = 0
    for t in range(n_threads):
        if mine[t] and counts[t, 0] > 0:
            slot_of[t] = n_slots
            n_slots += 1
    base = np.zeros(n_slots + 1, dtype=np.int64)  # each slot's part of the stacks
    cursor = np.zeros(6, dtype=np.int64)
    for t in range(n_threads):
        s = slot_of[t]
        if s >= 0:
            base[s + 1] = base[s] - counts[t, 2] + counts[t, 3]
            cursor[4] += -counts[t, 2]
    height = base[n_slots]
    stacks = Stacks(
        base,
        np.zeros(n_slots, dtype=np.int64),
        np.empty(height, dtype=np.int64),
        np.empty(height, dtype=np.bool_),
        np.empty(height, dtype=np.int64),
        np.zeros(height, dtype=np.int64),
        np.zeros(height, dtype=np.int64),
        np.zeros(n_slots * n_methods if dense else 0, dtype=np.int32),
    )
    out = np.zeros((n_threads, 4), dtype=np.int64)  # calls, failed, open, unroll
    ends = np.zeros((n_threads, 4), dtype=np.int64)
    threads = Threads(counts, synth[0], synth[1], slot_of, out, ends, marks)
    return Walk(threads, stacks, cursor)


@njit
def first_table() -> Table:
    """An empty edge table: rows (key, thread) and sums (calls, time on each clock)."""
    return Table(
        np.full(2 * FIRST_EDGES, -1, dtype=np.int64),
        np.empty((FIRST_EDGES, 2), dtype=np.int64),
        np.zeros((FIRST_EDGES, 3), dtype=np.int64),
    )


@njit
def feed(
    events: tuple[Ints, Ints, Ints],
    clocks: Clocks,
    offset: int,
    walk: Walk,
    table: Table,
    n_methods: int,
    visit: tuple[I32, bool],
) -> Table:
    """Count the next records (events: thread, action, method columns of records `offset`...
    of the trace, `clocks` their times) into `table`; returns the table (grown when full).
    `visit`: every record (True), else only the rows given, in order (`split`).

    `_count` counts until the chunk ends or the table is full, then again with twice the
    room: the table's arrays never change inside the loop over records (an array variable
    assigned in a loop costs two atomic reference counts per iteration)."""
    cursor = walk.cursor
    cursor[1] = 0
    end = len(events[0]) if visit[1] else len(visit[0])
    while True:
        _count(events, clocks, offset, walk, table, n_methods, visit)
        if cursor[1] >= end and cursor[4] == 0:
            return table
        table = grown(table, cursor[0])


@njit
def split(thread: Ints, group_of: I64, n_groups: int) -> tuple[I32, I64]:
    """A chunk's rows grouped by the worker of their thread (`group_of`, -1: none), each
    group in file order, and where each group starts (then the end)."""
    at = np.zeros(n_groups + 1, dtype=np.int64)
    for r in range(len(thread)):
        g = group_of[thread[r]]
        if g >= 0:
            at[g + 1] += 1
    for g in range(n_groups):
        at[g + 1] += at[g]
    rows = np.empty(at[n_groups], dtype=np.int32)
    fill = at[:n_groups].copy()
    for r in range(len(thread)):
        g = group_of[thread[r]]
        if g >= 0:
            rows[fill[g]] = r
            fill[g] += 1
    return rows, at


@njit
def finish(walk: Walk, table: Table, n_clocks: int) -> tuple[I64, I64, I64]:
    """Close what is still open by each thread's last record; returns the edges' (key,
    thread) rows and sums (calls, time on each clock), and per thread `(calls, failed, open
    at the end, exited by an unroll)`."""
    out, ends, slot_of = walk.threads.out, walk.threads.ends, walk.threads.slot_of
    stacks = walk.stacks
    base, top, st_edge, st_t0, st_t1 = stacks.base, stacks.top, stacks.edge, stacks.t0, stacks.t1
    sums = table.sums
    for t in range(len(out)):
        s = slot_of[t]
        if s < 0 or out[t, 1]:
            continue
        for at in range(base[s] + top[s] - 1, base[s] - 1, -1):
            edge = st_edge[at]
            sums[edge, 0] += 1
            if n_clocks > 0:
                sums[edge, 1] += ends[t, 2] - st_t0[at]
            if n_clocks > 1:
                sums[edge, 2] += ends[t, 3] - st_t1[at]
            out[t, 0] += 1
            out[t, 2] += 1
    k = walk.cursor[0]
    return table.keys[:k].copy(), sums[:k].copy(), out


@njit
def _count(
    events: tuple[Ints, Ints, Ints],
    clocks: Clocks,
    offset: int,
    walk: Walk,
    table: Table,
    n_methods: int,
    visit: tuple[I32, bool],
) -> None:
    """Count from `walk.cursor` on until the chunk ends or the table has no room for one
    more edge (`feed`; `visit`: its records). The frames open when tracing began come first
    (before the first record), then every record in file order; a thread's first record gives
    its open-at-start frames their start."""
    thread, action, method = events
    times0, times1, n_clocks = clocks
    counts, synth_of, synth_at, slot_of, out, _, marks = walk.threads
    base, top, st_method, st_rec, st_edge, st_t0, st_t1, on_stack = walk.stacks
    cursor = walk.cursor
    slots, keys, sums = table
    width = 2 * n_methods
    dense = len(on_stack) > 0
    k, p, t, d, n_synth = cursor[0], cursor[1] - 1, cursor[2], cursor[3], cursor[4]
    rows, every = visit
    end = len(thread) if every else len(rows)
    r = -1
    mark = cursor[5]
    upcoming = marks[mark]  # the next first or last record of a thread of this worker
    while True:
        if n_synth > 0:  # the next open-at-start frame: thread t, depth d
            while slot_of[t] < 0 or d >= -counts[t, 2]:
                t += 1
                d = 0
            m = synth_of[synth_at[t] + d]
            entering = True
        else:
            p += 1
            if p >= end:
                break
            r = p if every else rows[p]
            t = thread[r]
            if slot_of[t] < 0:
                continue
            m = method[r]
            entering = action[r] == ENTER
            g = offset + r
            if g >= upcoming:  # (one comparison a record, in a register)
                _ends(walk, clocks, t, r, g)
                while marks[mark] <= g:  # (a failed thread's marks are passed over too)
                    mark += 1
                upcoming = marks[mark]
        s = slot_of[t]
        b = base[s]
        h = top[s]
        if entering:
            if k + 1 >= len(keys):  # full: `feed` grows the table, then this record comes again
                cursor[0], cursor[1], cursor[2], cursor[3], cursor[4] = k, p, t, d, n_synth
                cursor[5] = mark
                if n_synth > 0:
                    cursor[1] = 0  # (before the first record)
                return
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
            if r >= 0:  # (an open-at-start frame's start is written at the first record)
                if n_clocks > 0:
                    st_t0[b + h] = times0[r]
                if n_clocks > 1:
                    st_t1[b + h] = times1[r]
            top[s] = h + 1
            continue
        at = b + h - 1
        if st_method[at] != m:
            out[t, 1] = 1
            slot_of[t] = -1  # failed: its records are passed over
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
    cursor[0], cursor[1], cursor[4], cursor[5] = k, end, 0, mark


@njit
def _ends(walk: Walk, clocks: Clocks, t: int, r: int, g: int) -> None:
    """At record `r` (`g` of the trace) of thread `t`: its first record starts its frames
    open when tracing began and gives its first times, its last record its last times."""
    times0, times1, n_clocks = clocks
    counts, ends, base = walk.threads.counts, walk.threads.ends, walk.stacks.base
    if g == counts[t, 4]:
        lo = base[walk.threads.slot_of[t]]
        for i in range(lo, lo - counts[t, 2]):
            if n_clocks > 0:
                walk.stacks.t0[i] = times0[r]
            if n_clocks > 1:
                walk.stacks.t1[i] = times1[r]
        if n_clocks > 0:
            ends[t, 0] = times0[r]
        if n_clocks > 1:
            ends[t, 1] = times1[r]
    if g == counts[t, 5]:
        if n_clocks > 0:
            ends[t, 2] = times0[r]
        if n_clocks > 1:
            ends[t, 3] = times1[r]


__all__ = ["Clocks", "feed", "finish", "first_table", "split", "start"]
