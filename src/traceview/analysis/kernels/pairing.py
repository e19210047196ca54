"""A compiled (numba) pairing of every thread's records into calls, for `calls.build_calls`: the
same calls, rows and flags as `_pairing.pair_thread` thread by thread (property-tested equal),
written straight into the call table's columns in two passes over the events in file order.

The first pass counts, per thread, its records, enters, first and last event, and how far its
stack would fall below its bottom (exits closing frames open when tracing began: `s`) or rise
above it, which sizes each thread's rows (`s` + enters) and stack exactly. The second keeps one
stack per thread: the `s` synthesised calls first (outermost first, their methods their exits'),
then each enter pushed at its row (rows in entry order: depth-first pre-order) and popped at its
exit, which must name its method; what is left open at the end is closed by the thread's last
record. A last pass over each thread's calls marks those with an ancestor of the same method as
recursive. A thread whose exit names another method is marked failed and left to the numpy
repair (`_pairing.repair_sequence`).

These kernels allocate nothing: they run as native code (kernels/native.py, driven by
analysis/walk.py), so building a call table never imports numba.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.kernels.columns import Calls, Events, Pairing
from traceview.analysis.kernels.jit import njit
from traceview.analysis.pairing import ENTER, OPEN, RECURSIVE, SYNTH_ENTRY, UNROLL, UNROLL_ACTION

I64 = npt.NDArray[np.int64]
Ints = npt.NDArray[Any]


@njit
def count_more(events: tuple[Ints, Ints, Ints], offset: int, out: I64, lows: I64) -> int:
    """`count` of the next records (events: thread, action, method columns of rows
    `offset`... of the trace, a chunk of them) added into `out`. Each exit that takes its
    thread's balance to a new lowest (one more frame open when tracing began) is written to
    `lows` as (thread, method) while it has room; returns how many were written."""
    thread, action, method = events
    n = 0
    for r in range(len(thread)):
        t = thread[r]
        if out[t, 0] == 0:
            out[t, 4] = offset + r
        out[t, 5] = offset + r
        out[t, 0] += 1
        if action[r] == ENTER:
            out[t, 1] += 1
            balance = out[t, 1] - (out[t, 0] - out[t, 1])
            out[t, 3] = max(out[t, 3], balance)
        else:
            balance = out[t, 1] - (out[t, 0] - out[t, 1])
            if balance < out[t, 2]:
                out[t, 2] = balance
                if n < len(lows):
                    lows[n, 0] = t
                    lows[n, 1] = method[r]
                    n += 1
    return n


@njit
def pair(
    events: Events,
    counts: I64,
    start: I64,
    stack_at: I64,
    stack: Ints,
    calls: Calls,
    state: Pairing,
) -> None:
    """Pair the records of the threads `state.skip` does not mark into their rows
    `[start[t], start[t + 1])` of the columns `calls` (row references are the table's), with
    `stack[stack_at[t]:stack_at[t + 1]]` as the stack; `counts` from `count_more`. A thread
    whose exit names another method than its enter is marked in `skip` (its rows are left
    unfinished); per thread, `state` counts the calls left open at the end and the calls
    exited by an unroll record (`top`, `nxt`: zeros the pass works in). Passes over
    different threads may run at once: each writes only its threads' rows and stack."""
    thread, action, method_of = events
    method, depth, parent, subtree_end, enter_event, exit_event, flags = calls
    skip, still_open, unroll, top, nxt = state
    n_threads = len(start) - 1
    for t in range(n_threads):
        if skip[t]:
            continue
        s = -counts[t, 2]
        for d in range(s):  # frames open when tracing began: local row d at depth d
            row = start[t] + d
            depth[row] = d
            parent[row] = row - 1 if d > 0 else -1
            enter_event[row] = counts[t, 4]
            flags[row] = SYNTH_ENTRY
            stack[stack_at[t] + d] = row
        top[t] = s
        nxt[t] = s
    for r in range(len(thread)):
        t = thread[r]
        if skip[t]:
            continue
        at = stack_at[t]
        if action[r] == ENTER:
            row = start[t] + nxt[t]
            nxt[t] += 1
            method[row] = method_of[r]
            depth[row] = top[t]
            parent[row] = stack[at + top[t] - 1] if top[t] > 0 else -1
            enter_event[row] = r
            flags[row] = 0
            stack[at + top[t]] = row
            top[t] += 1
        else:
            top[t] -= 1
            call = stack[at + top[t]]
            if call - start[t] >= -counts[t, 2]:
                if method_of[r] != method[call]:
                    skip[t] = True
                    continue
            else:
                method[call] = method_of[r]
            exit_event[call] = r
            subtree_end[call] = start[t] + nxt[t]
            if action[r] == UNROLL_ACTION:
                flags[call] |= UNROLL
                unroll[t] += 1
    for t in range(n_threads):
        if skip[t]:
            continue
        while top[t] > 0:  # open at the end: closed by the thread's last record
            top[t] -= 1
            call = stack[stack_at[t] + top[t]]
            exit_event[call] = counts[t, 5]
            subtree_end[call] = start[t + 1]
            flags[call] = OPEN
            still_open[t] += 1


@njit
def mark_recursive(
    calls: Calls,
    start: I64,
    stack_at: I64,
    skip: npt.NDArray[np.bool_],
    stack: Ints,
    on_stack: npt.NDArray[np.int32],
) -> None:
    """Flag the calls with an ancestor of the same method, thread by thread (rows
    `[start[t], start[t + 1])`, but not the threads in `skip`): a walk in pre-order keeping
    the open calls on the thread's part of `stack` and how many of each method are open
    (`on_stack`: zeros, one per method)."""
    method, subtree_end, flags = calls.method, calls.subtree_end, calls.flags
    for t in range(len(start) - 1):
        if skip[t]:
            continue
        base = stack_at[t]
        top = 0
        for i in range(start[t], start[t + 1]):
            while top > 0 and subtree_end[stack[base + top - 1]] <= i:
                top -= 1
                on_stack[method[stack[base + top]]] -= 1
            if on_stack[method[i]] > 0:
                flags[i] |= RECURSIVE
            stack[base + top] = i
            top += 1
            on_stack[method[i]] += 1
        while top > 0:
            top -= 1
            on_stack[method[stack[base + top]]] -= 1
