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

import itertools
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
CHUNK = 1 << 15  # samples diffed together (the compared frames of a chunk bound its memory)


@dataclass
class Events:
    """The event columns, grouped by thread, each thread in time order."""

    thread: npt.NDArray[np.unsignedinteger]
    method: I32
    action: npt.NDArray[np.uint8]
    cpu: I64
    wall: I64


@dataclass
class _Steps:
    """The samples in order, with a closing step (depth 0) after each thread's last."""

    thread: I64
    depth: I64
    first: I64
    cpu: I64
    wall: I64


def events(
    thread: I64,
    time: I64,
    weight: I64,
    chain: tuple[I64, I64],
    rows: I32,
    dtype: np.dtype[np.unsignedinteger],
) -> Events:
    """The events of samples (`thread` rows, `time` and `weight` in ns, call chains
    `rows[first[i]:first[i] + depth[i]]` with `chain = (first, depth)`, innermost first),
    already sorted by (thread, time); thread rows as `dtype`. The common prefixes are found
    first (a number per step), so the event columns are made once at their final size."""
    steps = _steps(thread, time, weight, chain)
    total = len(steps.thread)
    bounds = [*range(0, total, CHUNK), total]
    lcp = np.concatenate(
        [_common(steps, rows, lo, hi) for lo, hi in itertools.pairwise(bounds)]
        or [np.zeros(0, dtype=np.int64)]
    )
    prev_depth = _previous(steps, np.arange(total))[1]
    count = prev_depth - lcp + steps.depth - lcp
    at = np.concatenate([[0], np.cumsum(count)]).astype(np.int64)
    n = int(at[-1])
    out = Events(
        np.empty(n, dtype=dtype),
        np.empty(n, dtype=np.int32),
        np.empty(n, dtype=np.uint8),
        np.empty(n, dtype=np.int64),
        np.empty(n, dtype=np.int64),
    )
    for lo, hi in itertools.pairwise(bounds):
        _emit(steps, rows, lcp, lo, hi, out, slice(int(at[lo]), int(at[hi])))
    return out


def _steps(thread: I64, time: I64, weight: I64, chain: tuple[I64, I64]) -> _Steps:
    n = len(thread)
    first, depth = chain
    if n == 0:
        z = np.zeros(0, dtype=np.int64)
        return _Steps(z, z, z, z, z)
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
    s = _Steps(
        np.empty(total, dtype=np.int64),
        np.zeros(total, dtype=np.int64),
        np.zeros(total, dtype=np.int64),
        np.empty(total, dtype=np.int64),
        np.empty(total, dtype=np.int64),
    )
    close = last + np.arange(1, len(last) + 1)
    s.thread[step], s.thread[close] = thread, thread[last]
    s.depth[step], s.first[step] = depth, first
    s.wall[step], s.wall[close] = wall, time[last]
    s.cpu[step], s.cpu[close] = cpu, cpu[last] + weight[last]
    return s


def _previous(s: _Steps, k: I64) -> tuple[I64, I64]:
    """Each step's previous step of the same thread (its first frame) and its depth (0 for a
    thread's first step)."""
    p = np.maximum(k - 1, 0)
    has = (k > 0) & (s.thread[p] == s.thread[k])
    return s.first[p], np.where(has, s.depth[p], 0)


def _common(s: _Steps, rows: I32, lo: int, hi: int) -> I64:
    """How many outer frames each step of [lo, hi) shares with the previous one: the
    root-aligned frames of both compared at once, the first difference of each step found by
    one `minimum.reduceat`."""
    k = np.arange(lo, hi)
    op, dp = _previous(s, k)
    o, d = s.first[k], s.depth[k]
    common = np.minimum(d, dp)
    total = int(common.sum())
    if total == 0:
        return common
    at = np.cumsum(common) - common  # where each step's comparisons begin
    ar = np.arange(total)
    # the j-th frame from the root of a step is rows[first + depth - 1 - j]
    here = rows[np.repeat(o + d - 1 + at, common) - ar]
    there = rows[np.repeat(op + dp - 1 + at, common) - ar]
    where = np.where(here != there, ar, total)
    some = np.flatnonzero(common)
    found = np.minimum.reduceat(where, at[some])
    lcp = common.copy()
    lcp[some] = np.where(found < total, found - at[some], common[some])
    return lcp


def _emit(s: _Steps, rows: I32, lcp: I64, lo: int, hi: int, out: Events, to: slice) -> None:
    """Write the events of steps [lo, hi) into `out[to]` (per-step values spread over their
    events with `np.repeat`, a sequential copy, rather than gathered)."""
    k = np.arange(lo, hi)
    op, dp = _previous(s, k)
    o, d, c = s.first[k], s.depth[k], lcp[lo:hi]
    n_exit = dp - c
    count = n_exit + d - c
    pos = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    exits = np.repeat(n_exit, count)
    exiting = pos < exits
    # chains are stored innermost first: exits (innermost vanished frame out) are
    # rows[op + pos]; enters (outermost new frame in, level lcp + pos - n_exit) are
    # rows[o + d - 1 - level]
    index = np.where(
        exiting, np.repeat(op, count) + pos, np.repeat(o + d - 1 - c + n_exit, count) - pos
    )
    out.thread[to] = np.repeat(s.thread[k], count)
    out.method[to] = rows[index] if len(index) else 0
    out.action[to] = exiting
    out.cpu[to] = np.repeat(s.cpu[k], count)
    out.wall[to] = np.repeat(s.wall[k], count)
