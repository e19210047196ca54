"""Samples become enter/exit events, the way ART's sampling profiler writes them: each thread's
consecutive stacks are diffed (exits of the frames that vanished, innermost first, then enters
of the new ones, outermost first), and every stack is closed after the thread's last sample.

Times make each sample's weight its CPU time: on the CPU clock a sample's stack holds for its
weight (the cpu-clock/task-clock event count, in ns), so per-method CPU times are the summed
event counts. On the wall clock it holds from where its CPU slice began (its time minus its
weight, not before the previous sample) until the next sample's slice begins: off-CPU time
between two samples goes to the stack the thread stopped in (a sched_switch sample's stack,
when recorded with --trace-offcpu). All of it is vectorised over chunks of samples.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
CHUNK = 1 << 18  # samples diffed together (the compared frames of a chunk bound its memory)


@dataclass
class Events:
    """The event columns, grouped by thread, each thread in time order."""

    thread: I64
    method: I32
    action: npt.NDArray[np.uint8]
    cpu: I64
    wall: I64


def events(thread: I64, time: I64, weight: I64, chain: tuple[I64, I64], rows: I32) -> Events:
    """The events of samples (`thread` rows, `time` and `weight` in ns, call chains
    `rows[first[i]:first[i] + depth[i]]` with `chain = (first, depth)`, innermost first),
    already sorted by (thread, time)."""
    n = len(thread)
    if n == 0:
        z = np.zeros(0, dtype=np.int64)
        return Events(z, z.astype(np.int32), z.astype(np.uint8), z, z)
    first, depth = chain
    last = np.flatnonzero(np.append(thread[1:] != thread[:-1], True))  # each thread's last
    start = np.concatenate([[0], last[:-1] + 1])
    begins = np.zeros(n, dtype=bool)
    begins[start] = True
    prev_t = np.concatenate([[0], time[:-1]])
    wall = np.where(begins, np.maximum(time - weight, 0), np.maximum(prev_t, time - weight))
    spent = np.cumsum(weight) - weight
    cpu = spent - np.repeat(spent[start], last - start + 1)
    # a closing step after each thread's last sample: depth 0, at the end of its slice
    step = np.arange(n) + np.repeat(np.arange(len(last)), last - start + 1)
    total = n + len(last)
    s_thread = np.empty(total, dtype=np.int64)
    s_depth = np.zeros(total, dtype=np.int64)
    s_first = np.zeros(total, dtype=np.int64)
    s_wall = np.empty(total, dtype=np.int64)
    s_cpu = np.empty(total, dtype=np.int64)
    close = last + np.arange(1, len(last) + 1)
    s_thread[step], s_thread[close] = thread, thread[last]
    s_depth[step], s_first[step] = depth, first
    s_wall[step], s_wall[close] = wall, time[last]
    s_cpu[step], s_cpu[close] = cpu, cpu[last] + weight[last]
    parts = [
        _diff(s_thread, s_depth, s_first, rows, lo, min(lo + CHUNK, total))
        for lo in range(0, total, CHUNK)
    ]
    at = np.concatenate([p[0] for p in parts])
    return Events(
        s_thread[at],
        np.concatenate([p[1] for p in parts]).astype(np.int32),
        np.concatenate([p[2] for p in parts]).astype(np.uint8),
        s_cpu[at],
        s_wall[at],
    )


def _diff(thread: I64, depth: I64, first: I64, rows: I32, lo: int, hi: int) -> tuple[I64, I64, I64]:
    """Step index, method row and action of the events of steps [lo, hi)."""
    k = np.arange(lo, hi)
    p = k - 1
    has_prev = (p >= 0) & (thread[np.maximum(p, 0)] == thread[k])
    d, dp = depth[k], np.where(has_prev, depth[np.maximum(p, 0)], 0)
    o, op = first[k], first[np.maximum(p, 0)]
    common = np.minimum(d, dp)
    # the j-th frame from the root of a step is rows[first + depth - 1 - j]
    seg = np.repeat(np.arange(len(k)), common)
    j = np.arange(int(common.sum())) - np.repeat(np.cumsum(common) - common, common)
    differ = rows[(o + d - 1)[seg] - j] != rows[(op + dp - 1)[seg] - j]
    lcp = common.copy()
    hit = np.flatnonzero(differ)
    if len(hit):
        segs, once = np.unique(seg[hit], return_index=True)
        lcp[segs] = j[hit[once]]
    n_exit, n_enter = dp - lcp, d - lcp
    count = n_exit + n_enter
    owner = np.repeat(np.arange(len(k)), count)
    pos = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    exiting = pos < n_exit[owner]
    # exits from the innermost vanished frame out; enters from the outermost new frame in
    level = np.where(exiting, dp[owner] - 1 - pos, lcp[owner] + pos - n_exit[owner])
    index = np.where(exiting, (op + dp - 1)[owner] - level, (o + d - 1)[owner] - level)
    method = rows[index].astype(np.int64) if len(index) else np.zeros(0, dtype=np.int64)
    return k[owner], method, exiting.astype(np.int64)
