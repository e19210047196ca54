"""What the profile-interchange exporters (folded, svg, chrome, speedscope, pprof, parquet)
share: the selection's merged trees, one per thread or one for all, and the selection's calls
with their start and end on each clock, clipped to the query's time range.

Everything here is read from the session (`View`); nothing is recomputed. Trees come from
`session.top_down`, whose exclusive times are exact clipped times; call spans come from the
call table and `analysis.ranges.clipped_spans`, which clips exactly as the profile does.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from traceview.analysis.calls import CallTable
from traceview.analysis.calltree import CallTree
from traceview.analysis.profile import sum_by
from traceview.analysis.ranges import clipped_spans
from traceview.analysis.view import View
from traceview.model import visible

I64 = npt.NDArray[np.int64]
MAX_DEPTH = 1024  # stack formats keep this many frames; deeper ones fold into `DEEPER`
DEEPER = "[deeper frames]"


@dataclass(frozen=True)
class ThreadTree:
    """One part of a forest: the merged top-down tree of `threads` (one row, or every selected
    row when merged) and `label` (the thread's name, None when merged)."""

    threads: tuple[int, ...]
    label: str | None
    tree: CallTree


def selected_threads(view: View) -> list[int]:
    """The thread rows of the view's selection that have calls, in row order."""
    q = view.query
    rows = range(len(view.trace.threads)) if q.threads is None else q.threads
    counts = view.session.thread_records
    return [int(t) for t in rows if counts[t] > 0]


def thread_label(view: View, t: int) -> str:
    """`name [id]` (or `[id]` when unnamed): distinct even when names repeat."""
    th = view.trace.threads
    name = th.name[t]
    tid = int(th.id[t])
    return f"{visible(name)} [{tid}]" if name is not None else f"[{tid}]"


def forest(view: View, merge: bool) -> list[ThreadTree]:
    """The selection's merged trees: one per selected thread with calls (labelled with the
    thread), or one unlabelled tree of all of them when `merge`."""
    rows = selected_threads(view)
    if merge:
        return [ThreadTree(tuple(rows), None, view.top_down())]
    session = view.session
    out = []
    for t in rows:
        q = replace(view.query, threads=(t,))
        out.append(ThreadTree((t,), thread_label(view, t), session.top_down(q)))
    return out


@dataclass(frozen=True)
class Deep:
    """The nodes of a tree deeper than `MAX_DEPTH`, folded into one `DEEPER` frame under their
    ancestor at depth `MAX_DEPTH - 1`: those ancestors (`top`, node rows), and per ancestor
    the folded nodes' calls and exclusive ns per clock. Stack formats write one string per
    frame of every path, so an unbounded 70 000-deep recursion would be quadratic."""

    top: I64
    calls: I64
    excl: dict[str, I64]


def fold_deep(tree: CallTree, max_depth: int = MAX_DEPTH) -> tuple[I64, Deep]:
    """The rows of `tree` to write as they are (depth < `max_depth`, in pre-order) and the
    rest folded (`Deep`). In pre-order a node's ancestor at depth d is the last node of depth
    d before it, so one running maximum finds them all."""
    depth = tree.depth
    deep = depth >= max_depth
    if not deep.any():
        empty = np.zeros(0, dtype=np.int64)
        return np.arange(len(tree), dtype=np.int64), Deep(
            empty, empty, {c: empty for c in tree.clocks}
        )
    at_cut = np.where(depth == max_depth - 1, np.arange(len(tree)), -1)
    anc = np.maximum.accumulate(at_cut)[deep]
    top, inverse = np.unique(anc, return_inverse=True)
    k = len(top)
    calls = np.bincount(inverse, weights=tree.calls[deep], minlength=k)
    excl = {c: sum_by(inverse, tree.excl[c][deep], k) for c in tree.clocks}
    keep = np.flatnonzero(~deep).astype(np.int64)
    return keep, Deep(top.astype(np.int64), np.rint(calls).astype(np.int64), excl)


def frame_names(view: View) -> list[str]:
    """Every method's label as shown (renamed when the query renames), undecodable bytes as
    `\\xNN`; callers escape further for their format."""
    methods = view.methods
    return [visible(methods.label(i)) for i in range(len(methods))]


@dataclass(frozen=True)
class ThreadCalls:
    """One thread's calls in the selection, in pre-order: `depth`, `method`, `parent` and
    `subtree_end` (rows of this part, -1 for a root), and per clock the `start` and `end` ns
    (absolute, as the events hold them), clipped to the time range."""

    thread: int
    method: npt.NDArray[np.int32]
    depth: npt.NDArray[np.int32]
    parent: I64
    subtree_end: I64
    start: dict[str, I64]
    end: dict[str, I64]

    def __len__(self) -> int:
        return len(self.method)


def thread_calls(view: View) -> Iterator[ThreadCalls]:
    """The selection's calls thread by thread (only threads with calls in the selection)."""
    session = view.session
    q = view.query
    calls: CallTable = session.selection(q)
    clocks = calls.clocks
    for t in selected_threads(view):
        lo, hi = (int(x) for x in calls.thread_ranges[t])
        if hi == lo:
            continue
        sel = slice(lo, hi)
        depth = calls.depth[sel]
        method = calls.method[sel]
        end_row = calls.subtree_end[sel].astype(np.int64) - lo
        parent = calls.parent[sel].astype(np.int64) - lo
        parent[parent < 0] = -1
        if q.time_range is None:
            start = {c: calls.start(c, sel) for c in clocks}
            end = {c: calls.end(c, sel) for c in clocks}
        else:
            tr = q.time_range
            start, end, keep = clipped_spans(calls, t, clocks, tr.clock, (tr.lo, tr.hi))
            if not keep.all():
                rows = np.flatnonzero(keep)
                # kept calls are closed under ancestors (a call overlapping the range lies in
                # its parent), so the subtree of a kept row is the kept rows up to its end
                end_row = np.searchsorted(rows, end_row[rows]).astype(np.int64)
                up = parent[rows]
                parent = np.where(up >= 0, np.searchsorted(rows, np.maximum(up, 0)), -1)
                depth, method = depth[rows], method[rows]
                start = {c: v[rows] for c, v in start.items()}
                end = {c: v[rows] for c, v in end.items()}
            if not len(depth):
                continue
        yield ThreadCalls(t, method, depth, parent, end_row, start, end)


def origins(view: View) -> dict[str, int]:
    """The ns subtracted from every time on each clock so files start near 0: the session's
    origin on its timeline clock, the least time of the other clock."""
    ev = view.trace.events
    out: dict[str, int] = {}
    for c in view.session.clocks:
        if c == view.session.timeline_clock:
            out[c] = view.session.origin
        else:
            col = ev.time(c)
            out[c] = int(col.min()) if len(col) else 0
    return out
