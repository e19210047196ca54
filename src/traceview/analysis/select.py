"""Filters on a `CallTable` that return a `CallTable`, so they compose: threads, a time range,
and the subtrees of some methods. They sit between `build_calls` and `profile`/`calltree`.

Each keeps a subset of rows, in order, and re-links parents, depths and subtree ends; the
times still come from the trace's events (a time range keeps whole calls; clipping them is
`profile(..., time_range=...)`'s job).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from traceview.analysis.calls import CallTable
from traceview.analysis.mycode import share_thread_events

Bools = npt.NDArray[np.bool_]


def threads(calls: CallTable, rows: Iterable[int]) -> CallTable:
    """The calls of thread rows `rows` only (other threads keep an empty range)."""
    wanted = np.zeros(len(calls.thread_ranges), dtype=bool)
    wanted[list(rows)] = True
    keep = np.repeat(wanted, calls.thread_ranges[:, 1] - calls.thread_ranges[:, 0])
    return subset(calls, keep)


def time_range(calls: CallTable, lo: int, hi: int, clock: str | None = None) -> CallTable:
    """The calls overlapping [lo, hi) ns on `clock` (default wall, else cpu), whole; a kept
    call's ancestors overlap too, so the tree stays intact."""
    c = clock or ("wall" if "wall" in calls.clocks else "cpu")
    start, end = calls.start(c), calls.end(c)
    keep = ((start < hi) & (end > lo)) | ((start == end) & (start >= lo) & (start < hi))
    return subset(calls, keep)


def focus(calls: CallTable, methods: Iterable[int]) -> CallTable:
    """The subtrees of every call of `methods` (method rows); the outermost such calls
    become roots."""
    hit = np.isin(calls.method, np.fromiter(methods, dtype=np.int64))
    reach = np.maximum.accumulate(np.where(hit, calls.subtree_end.astype(np.int64), 0))
    keep = np.arange(len(calls)) < reach
    return subset(calls, keep)


def subset(calls: CallTable, keep: Bools) -> CallTable:
    """The rows where `keep` is True. `keep` must be closed upward (every kept row's parent
    kept) or downward (every kept row's subtree kept) within each kept subtree; a kept row
    whose parent is dropped becomes a root."""
    n = len(calls)
    cum = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(keep, out=cum[1:])
    rows = np.flatnonzero(keep)
    m = len(rows)
    row_dtype = np.int32 if m < 2**31 - 1 else np.int64
    old_parent = calls.parent[rows].astype(np.int64)
    has = old_parent >= 0
    has[has] = keep[old_parent[has]]
    parent = np.where(has, cum[np.maximum(old_parent, 0)], -1)
    subtree_end = cum[calls.subtree_end[rows].astype(np.int64)]
    # depth = number of ancestors = j - #{k < j: subtree_end[k] <= j}
    closed = np.cumsum(np.bincount(subtree_end, minlength=m + 1))[:m]
    depth = np.arange(m, dtype=np.int64) - closed
    table = CallTable(
        trace=calls.trace,
        method=calls.method[rows],
        depth=depth.astype(np.int32),
        parent=parent.astype(row_dtype),
        subtree_end=subtree_end.astype(row_dtype),
        enter_event=calls.enter_event[rows],
        exit_event=calls.exit_event[rows],
        flags=calls.flags[rows],
        thread_ranges=cum[calls.thread_ranges],
        diagnostics=list(calls.diagnostics),
    )
    return share_thread_events(calls, table)
