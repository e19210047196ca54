"""Filters on a `CallTable` that return a `CallTable`, so they compose: threads, a time range,
the window of calls near a range, and the subtrees of some methods. They sit between
`build_calls` and `profile`/`calltree` (the "my code" filter is analysis/mycode.py).

Each keeps a subset of rows, in order, and re-links parents, depths and subtree ends; the
times still come from the trace's events. What a time range keeps, and its clipping, is
analysis/ranges.py's rule; the views take it without a table, the calls table cuts one here.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from traceview.analysis.calls import CallTable
from traceview.analysis.query import TimeRange, range_clock
from traceview.analysis.ranges import near, overlapping

Bools = npt.NDArray[np.bool_]
I64 = npt.NDArray[np.int64]
IntArray = npt.NDArray[np.integer]


def threads(calls: CallTable, rows: Iterable[int]) -> CallTable:
    """The calls of thread rows `rows` only (other threads keep an empty range)."""
    wanted = np.zeros(len(calls.thread_ranges), dtype=bool)
    wanted[list(rows)] = True
    keep = np.repeat(wanted, calls.thread_ranges[:, 1] - calls.thread_ranges[:, 0])
    return subset(calls, keep)


def time_range(calls: CallTable, lo: int, hi: int, clock: str | None = None) -> CallTable:
    """The calls overlapping [lo, hi) ns on `clock` (default wall, else cpu), whole. A kept
    call's ancestors overlap too, except above a zero-length call at `lo` that ends its
    caller: it goes under its nearest kept ancestor (as the viewer's `keep_calls` does)."""
    c = clock or range_clock(calls.trace)
    return subset(calls, overlapping(calls, c, lo, hi))


def focus(calls: CallTable, methods: Iterable[int]) -> CallTable:
    """The subtrees of every call of `methods` (method rows); the outermost such calls
    become roots."""
    hit = np.isin(calls.method, np.fromiter(methods, dtype=np.int64))
    reach = np.maximum.accumulate(np.where(hit, calls.subtree_end.astype(np.int64), 0))
    keep = np.arange(len(calls)) < reach
    return subset(calls, keep)


def subset(calls: CallTable, keep: Bools) -> CallTable:
    """The rows where `keep` is True; a kept row whose parent is dropped goes under its
    nearest kept ancestor, or becomes a root. Meant for a `keep` closed upward (every kept
    row's parent kept) or downward (every kept row's subtree kept), where no row or a few
    climb, one level per step (`mycode.keep_calls` jumps, for any mask)."""
    rows = np.flatnonzero(keep)
    up = calls.parent[rows].astype(np.int64)
    lost = np.flatnonzero(up >= 0)
    lost = lost[~keep[up[lost]]]
    if len(lost):
        # a row has a kept ancestor iff an earlier kept row's subtree reaches past it: the
        # roots of a focus have none; a zero-length call at a time range's `lo` that ends a
        # caller ending at `lo` (dropped) may have one further up
        reach = np.maximum.accumulate(np.where(keep, calls.subtree_end, 0))
        inside = reach[rows[lost] - 1] > rows[lost]
        up[lost[~inside]] = -1
        lost = lost[inside]
    while len(lost):
        up[lost] = calls.parent[up[lost]]
        lost = lost[~keep[up[lost]]]
    return relink(calls, keep, rows, up)


def relink(calls: CallTable, keep: Bools, rows: IntArray, up: I64) -> CallTable:
    """The rows where `keep` is True (`rows`: their indexes) as a call table, each kept row
    under the kept row `up` (old row numbers, -1 for a root), subtree ends and depths
    renumbered; `keep_calls` of the "my code" filter shares it."""
    n = len(calls)
    cum = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(keep, out=cum[1:])
    m = len(rows)
    parent = np.where(up >= 0, cum[np.maximum(up, 0)], -1)
    subtree_end = cum[calls.subtree_end[rows].astype(np.int64)]
    # depth = number of ancestors = j - #{k < j: subtree_end[k] <= j}
    closed = np.cumsum(np.bincount(subtree_end, minlength=m + 1))[:m]
    depth = np.arange(m, dtype=np.int64) - closed
    return rows_table(calls, rows, parent, subtree_end, depth, cum[calls.thread_ranges])


def rows_table(
    calls: CallTable,
    rows: IntArray,
    parent: IntArray,
    subtree_end: IntArray,
    depth: IntArray,
    thread_ranges: I64,
) -> CallTable:
    """The calls at `rows` with their renumbered `parent`, `subtree_end`, `depth` and thread
    ranges; the other columns and the threads' event bounds are those of `calls`."""
    row_dtype = np.int32 if len(rows) < 2**31 - 1 else np.int64
    table = CallTable(
        trace=calls.trace,
        method=calls.method[rows],
        depth=depth.astype(np.int32, copy=False),
        parent=parent.astype(row_dtype, copy=False),
        subtree_end=subtree_end.astype(row_dtype, copy=False),
        enter_event=calls.enter_event[rows],
        exit_event=calls.exit_event[rows],
        flags=calls.flags[rows],
        thread_ranges=thread_ranges,
        diagnostics=list(calls.diagnostics),
    )
    return share_thread_events(calls, table)


def share_thread_events(source: CallTable, table: CallTable) -> CallTable:
    """Give `table` the first/last event of each thread already found for `source`.

    Both tables read the same events, so the (cached) per-thread event bounds are equal;
    recomputing them scans every event of the trace (~0.7 s at 10M records) per filter.
    """
    cached = source.__dict__.get("_thread_events", source.thread_events)
    if cached is not None:
        table.__dict__["_thread_events"] = cached
    return table


def window(calls: CallTable, threads: Iterable[int] | None, tr: TimeRange) -> CallTable:
    """The calls of `threads` near `tr` (`ranges.near`: those starting inside it, the last one
    starting before it with its ancestors, and the one after) as a table: a narrow range
    cuts a few rows out of a big one."""
    times = calls.trace.events.time(tr.clock)
    rows_of = range(len(calls.thread_ranges)) if threads is None else threads
    parts = [np.zeros(0, dtype=np.int64)]
    for t in rows_of:
        for lo, hi in zip(*near(calls, t, times, tr.lo, tr.hi), strict=True):
            parts.append(np.arange(lo, hi, dtype=np.int64))
    return select_rows(calls, np.concatenate(parts))


def select_rows(calls: CallTable, rows: npt.NDArray[np.integer]) -> CallTable:
    """The calls at `rows` (sorted, and holding every ancestor of each row) as a call table:
    cheaper than `mycode.keep_calls` (no ancestor search), used by `window`."""
    rows = np.asarray(rows, dtype=np.int64)
    par = calls.parent[rows].astype(np.int64)
    new_parent = np.where(par >= 0, _rank(rows, np.maximum(par, 0)), -1)
    new_end = _rank(rows, calls.subtree_end[rows].astype(np.int64))
    ranges = np.searchsorted(rows, calls.thread_ranges, side="left").astype(np.int64)
    return rows_table(calls, rows, new_parent, new_end, calls.depth[rows], ranges)


def _rank(rows: npt.NDArray[np.integer], x: npt.NDArray[np.integer]) -> npt.NDArray[np.int64]:
    """`np.searchsorted(rows, x)` (left) for sorted distinct `rows`, searched among the starts
    of their contiguous runs: a time window is a few runs, so the search stays in cache."""
    if not len(rows):
        return np.zeros(len(x), dtype=np.int64)
    first = np.flatnonzero(np.diff(rows) != 1) + 1
    first = np.concatenate((np.zeros(1, dtype=np.int64), first))
    run_start = rows[first]
    run_len = np.diff(np.append(first, len(rows)))
    k = np.searchsorted(run_start, x, side="right") - 1
    kk = np.maximum(k, 0)
    out = first[kk] + np.minimum(x - run_start[kk], run_len[kk])
    return np.where(k >= 0, out, 0)
