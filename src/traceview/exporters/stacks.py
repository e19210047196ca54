"""What the profile-interchange exporters (folded, svg, chrome, speedscope, pprof, parquet)
share: the selection's merged trees, one per thread or one for all, and the selection's calls
with their start and end on each clock, clipped to the query's time range.

Everything here is read from the session (`View`); nothing is recomputed. Trees come from
`session.top_down` (per thread `session.top_down_per_thread`, one cache entry), whose
exclusive times are exact clipped times; call spans come from `api.tables.selected_calls`,
which clips exactly as the profile does.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.axis import AXIS
from traceview.analysis.calls import CallTable
from traceview.analysis.calltree import CallTree
from traceview.analysis.parts import sum_by
from traceview.analysis.query import TimeRange
from traceview.analysis.view import View
from traceview.api.tables import origins as table_origins
from traceview.api.tables import selected_calls
from traceview.model import visible

I64 = npt.NDArray[np.int64]
MAX_DEPTH = 1024  # stack formats keep this many frames; deeper ones fold into `DEEPER`
DEEPER = "[deeper frames]"
ALL = slice(None)


@dataclass(frozen=True)
class ThreadTree:
    """One part of a forest: the merged top-down tree of `threads` (one row, or every selected
    row when merged) and `label` (the thread's name, None when merged)."""

    threads: tuple[int, ...]
    label: str | None
    tree: CallTree


def selected_threads(view: View) -> list[int]:
    """The thread rows of the view's selection that have calls, in row order."""
    return view.session.busy_threads(view.query)


def thread_label(view: View, t: int) -> str:
    """`name [id]` (or `[id]` when unnamed): distinct even when names repeat."""
    th = view.trace.threads
    name = th.name[t]
    tid = int(th.id[t])
    return f"{visible(name)} [{tid}]" if name is not None else f"[{tid}]"


def forest(view: View, merge: bool) -> list[ThreadTree]:
    """The selection's merged trees: one per selected thread with calls (labelled with the
    thread), or one unlabelled tree of all of them when `merge`."""
    if merge:
        return [ThreadTree(tuple(selected_threads(view)), None, view.top_down())]
    parts = view.session.top_down_per_thread(view.query)
    return [ThreadTree((t,), thread_label(view, t), tree) for t, tree in parts]


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
class Spans:
    """One thread's call start and end ns per clock, read on demand (a chunk at a time):
    the events' time columns (`starts` and `ends` the same) through each call's `enter` and
    `exit` event rows, or, without event rows, the clipped times of each call."""

    starts: dict[str, I64]
    ends: dict[str, I64]
    enter: I64 | None = None
    exit: I64 | None = None

    def start(self, clock: str, calls: slice | I64 = ALL) -> I64:
        """Start ns of `calls` (rows of this thread) on `clock`."""
        col = self.starts[clock]
        return col[calls] if self.enter is None else col[self.enter[calls]]

    def end(self, clock: str, calls: slice | I64 = ALL) -> I64:
        """End ns of `calls` on `clock`."""
        col = self.ends[clock]
        return col[calls] if self.exit is None else col[self.exit[calls]]

    def at(self, clock: str, calls: I64, closing: npt.NDArray[np.bool_]) -> I64:
        """Per event (a call opening or `closing`) its time: the call's end or start."""
        if self.enter is None or self.exit is None:
            return np.where(closing, self.end(clock, calls), self.start(clock, calls))
        return self.starts[clock][np.where(closing, self.exit[calls], self.enter[calls])]


@dataclass(frozen=True)
class ThreadCalls:
    """One thread's calls in the selection, in pre-order: `depth`, `method`, `parent` and
    `subtree_end` (rows of this part, -1 for a root), per clock the start and end ns
    (absolute, as the events hold them), clipped to the time range (`spans`; a CPU-only
    trace's also on its reconstructed axis, `"axis"`), and the engine's repair `flags`."""

    thread: int
    method: npt.NDArray[np.signedinteger[Any]]
    depth: npt.NDArray[np.int32]
    parent: I64
    subtree_end: I64
    spans: Spans
    flags: npt.NDArray[np.uint8]

    def __len__(self) -> int:
        return len(self.method)


def thread_calls(view: View) -> Iterator[ThreadCalls]:
    """The selection's calls thread by thread (only threads with calls in the selection), from
    `analysis.tables` (the same clipping as the profile and the SQL tables). Without a time
    range the times are gathered from the events only when read (no copy of every call's).
    A CPU-only trace's spans also hold its timeline axis (`AXIS`), clipped to the range."""
    calls, start, end = selected_calls(view)
    axis = view.session.reconstructed
    clocks = (*calls.clocks, AXIS) if axis else calls.clocks
    columns = {c: calls.trace.events.time(c) for c in clocks}
    tr = view.query.time_range
    for t in range(len(calls.thread_ranges)):
        lo, hi = (int(x) for x in calls.thread_ranges[t])
        if hi == lo:
            continue
        sel = slice(lo, hi)
        if start is None or end is None or tr is None:
            spans = Spans(columns, columns, calls.enter_event[sel], calls.exit_event[sel])
        else:
            starts = {c: v[sel] for c, v in start.items()}
            ends = {c: v[sel] for c, v in end.items()}
            if axis:
                starts[AXIS], ends[AXIS] = _axis_clipped(calls, sel, tr, starts, ends)
            spans = Spans(starts, ends)
        parent = calls.parent[sel].astype(np.int64) - lo
        parent[parent < 0] = -1
        yield ThreadCalls(
            t,
            calls.method[sel],
            calls.depth[sel],
            parent,
            calls.subtree_end[sel].astype(np.int64) - lo,
            spans,
            calls.flags[sel],
        )


def _axis_clipped(
    calls: CallTable, sel: slice, tr: TimeRange, starts: dict[str, I64], ends: dict[str, I64]
) -> tuple[I64, I64]:
    """Calls' start and end on the reconstructed axis, clipped to `tr`: on the axis itself
    when the range is on it, else moved by what the range clipped off their CPU times (the
    axis runs one for one with a thread's CPU clock while it runs)."""
    s, e = calls.start(AXIS, sel), calls.end(AXIS, sel)
    if tr.clock == AXIS:
        return np.clip(s, tr.lo, tr.hi), np.clip(e, tr.lo, tr.hi)
    shift_s = starts["cpu"] - calls.start("cpu", sel)
    shift_e = calls.end("cpu", sel) - ends["cpu"]
    return s + shift_s, e - shift_e


def nesting_order(subtree_end: I64) -> tuple[I64, npt.NDArray[np.bool_]]:
    """A thread's open/close events in nesting order, from its calls' `subtree_end` (rows in
    pre-order): (call row, is_close) per event.

    No sort: each event's slot follows from counts. Let d[i] be the number of ancestors of
    row i (the calls before it whose subtree has not ended: i - #{j: subtree_end[j] <= i}).
    The open of row i comes after the i opens of rows < i and the closes of all of those but
    its d[i] ancestors: slot 2i - d[i]. The close of row i, whose subtree ends at e, comes
    after the e opens of rows < e and the closes of all of those but itself and its d[i]
    ancestors (deeper calls close first): slot 2e - 1 - d[i]. Depths are counted from the
    subtree ends, so the order is that of the nesting itself."""
    n = len(subtree_end)
    rows = np.arange(n, dtype=np.int64)
    closed = np.cumsum(np.bincount(subtree_end, minlength=n + 1)[:n])  # ended at or before i
    depth = rows - closed
    call = np.empty(2 * n, dtype=np.int64)
    closing = np.ones(2 * n, dtype=bool)
    opens = rows + closed
    call[opens] = rows
    closing[opens] = False
    call[2 * subtree_end - 1 - depth] = rows
    return call, closing


def origins(view: View) -> dict[str, int]:
    """The ns subtracted from every time on each clock so files start near 0 (as in the SQL
    tables: the session's origin on its timeline clock, the least time of the other clock)."""
    return table_origins(view.session)
