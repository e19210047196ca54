"""Compiled (numba) whole-trace profile straight from the events, for `analysis/direct.py`
(`traceview -r`, `stats`, `info`, `dmtracedump`): no call table, one pass over the records in
file order, as dmtracedump itself reads them, fed the whole event columns at once or chunk by
chunk as a reader decodes them (`count`, then `close`: nothing is kept of a chunk). They run as
native code (kernels/native.py): they allocate nothing, `analysis/direct.py` makes the stacks
and grows the edge table.

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

from traceview.analysis.kernels.columns import Clocks, Table, Walk
from traceview.analysis.kernels.hashing import row_of
from traceview.analysis.kernels.jit import njit

I64 = npt.NDArray[np.int64]
Ints = npt.NDArray[Any]

ENTER, UNROLL_ACTION = 0, 2  # analysis/pairing.py


@njit
def close(walk: Walk, table: Table, n_clocks: int) -> None:
    """Close what is still open by each thread's last record, into `table` and per thread
    `walk.threads.out` (`(calls, failed, open at the end, exited by an unroll)`)."""
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


@njit
def count(
    events: tuple[Ints, Ints, Ints],
    clocks: Clocks,
    offset: int,
    walk: Walk,
    table: Table,
    n_methods: int,
) -> None:
    """Count the next records (events: thread, action, method columns of records `offset`...
    of the trace, `clocks` their times) into `table` from `walk.cursor` on, until the chunk
    ends or the table has no room for one more edge (the caller then grows it and calls again;
    `cursor[1] >= ` the chunk's end and `cursor[4] == 0` once done). The frames open when
    tracing began come first (before the first record), then every record in file order (the
    other workers' threads passed over); a thread's first record gives its open-at-start
    frames their start."""
    thread, action, method = events
    times0, times1, n_clocks = clocks
    counts, synth_of, synth_at, slot_of, out, _, marks = walk.threads
    base, top, st_method, st_rec, st_edge, st_t0, st_t1, on_stack = walk.stacks
    cursor = walk.cursor
    slots, keys, sums = table
    width = 2 * n_methods
    dense = len(on_stack) > 0
    k, p, t, d, n_synth = cursor[0], cursor[1] - 1, cursor[2], cursor[3], cursor[4]
    end = len(thread)
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
            r = p
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


__all__ = ["close", "count"]
