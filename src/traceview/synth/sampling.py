"""Sampled traces (format.md §1.9): what ART's sampling profiler records when it looks at the
generator's instrumented threads every `interval` µs.

Every sample walks each thread's stack and diffs it with the previous one: exits for vanished
frames (innermost first), enters for new ones (outermost first), all at the sample's time, no
unrolls, nothing closed at the end. Stacks are found per sample with numpy, one loop per depth
level (tens), never per record.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]
Col = npt.NDArray[Any]
Cols = tuple[Col, Col, Col, Col, Col]


def _tops(action: Col) -> tuple[I64, I64, I64]:
    """Depth after each event, the innermost open call after it (an enter index, -1 if none),
    and each enter's parent call (-1 for roots), for a stream without unmatched exits.

    The innermost open call after event i is the last enter at or before i with the same
    depth; grouping events by depth (a stable radix sort) and taking a running maximum of
    enter indices finds it for all events at once. A call's parent is the top before it.
    """
    n = len(action)
    enters = action == 0
    depth = np.cumsum(np.where(enters, 1, -1))
    order = np.argsort(depth.astype(np.int16), kind="stable")  # depths stay far below 2^15
    group = depth[order] - (depth.min() if n else 0)
    key = group * n + np.where(enters[order], order, -1)
    top = np.empty(n, dtype=np.int64)
    top[order] = np.maximum.accumulate(key) - group * n if n else key
    top[(top < 0) | (depth <= 0)] = -1
    parent = np.full(n, -1, dtype=np.int64)
    at = np.flatnonzero(enters[1:]) + 1
    parent[at] = top[at - 1]
    return depth, top, parent


def _stacks(method: I64, depth: I64, top: I64, parent: I64, picks: I64) -> tuple[I64, I64]:
    """The method rows on the stack (outermost first, -1 padded) after each event in `picks`."""
    dep = np.where(picks >= 0, depth[np.maximum(picks, 0)], 0)
    width = int(dep.max(initial=0))
    stack = np.full((len(picks), max(width, 1)), -1, dtype=np.int64)
    cur = np.where(dep > 0, top[np.maximum(picks, 0)], -1)
    for t in range(width):
        live = dep - 1 - t >= 0
        rows = np.flatnonzero(live)
        stack[rows, dep[rows] - 1 - t] = method[cur[rows]]
        cur[rows] = parent[cur[rows]]
    return stack, dep


def _diff(stack: I64, dep: I64) -> tuple[I64, I64, I64]:
    """Sample index, action and method of every record the sampler writes."""
    prev = np.vstack([np.full((1, stack.shape[1]), -1), stack[:-1]])
    prev_dep = np.concatenate([[0], dep[:-1]])
    differ = stack != prev
    same = np.where(differ.any(axis=1), differ.argmax(axis=1), stack.shape[1])
    lcp = np.minimum(same, np.minimum(dep, prev_dep))
    n_exit, n_enter = prev_dep - lcp, dep - lcp
    counts = n_exit + n_enter
    sample = np.repeat(np.arange(len(dep), dtype=np.int64), counts)
    pos = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(
        np.cumsum(counts) - counts, counts
    )
    is_exit = pos < n_exit[sample]
    col = np.where(is_exit, prev_dep[sample] - 1 - pos, lcp[sample] + pos - n_exit[sample])
    method = np.where(is_exit, prev[sample, col], stack[sample, col])
    return sample, np.where(is_exit, 1, 0).astype(np.int64), method


def sample(
    per_thread: list[Cols],
    cpus: list[I64],
    walls: list[I64],
    interval_us: int,
    rng: np.random.Generator,
) -> tuple[list[Cols], list[I64], list[I64]]:
    """The sampled records of every thread, their CPU and wall µs times."""
    end = max((int(w[-1]) for w in walls if len(w)), default=0)
    grid = np.arange(0, end + 1, max(interval_us, 1), dtype=np.int64)
    grid = grid + rng.integers(0, max(interval_us // 4, 1), len(grid))  # the sampler wakes late
    out_cols, out_cpu, out_wall = [], [], []
    for (action, method, *_), cpu, wall in zip(per_thread, cpus, walls, strict=True):
        if not len(action):
            out_cols.append((action, method, action, action, action))
            out_cpu.append(cpu)
            out_wall.append(wall)
            continue
        act = np.where(action == 2, 1, action)
        depth, top, parent = _tops(act)
        picks = np.searchsorted(wall, grid, side="right") - 1
        stack, dep = _stacks(method, depth, top, parent, picks)
        idx, action_out, method_out = _diff(stack, dep)
        zeros = np.zeros(len(idx), dtype=np.int64)
        out_cols.append((action_out, method_out, zeros, zeros, zeros))
        out_cpu.append(cpu[np.maximum(picks[idx], 0)])
        out_wall.append(grid[idx])
    return out_cols, out_cpu, out_wall
