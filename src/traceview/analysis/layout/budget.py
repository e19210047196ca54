"""Frame budget: the main thread's frame-sized calls that ran longer than a budget (16 ms).

Which calls count as frames, in order of preference:

1. calls of `Choreographer.doFrame` (any overload; Android's vsync frame callback), outermost
   ones only (a recursive inner call is part of its outer frame);
2. else the outermost `Handler.dispatchMessage` / `Looper.loopOnce` calls (one message of the
   main looper each);
3. else the top-level calls (depth 0) of the thread.

A call is over budget when its duration on the chosen clock (wall when the trace has it, else
thread CPU) is at least the budget. Sits between the call table and the viewer's Frames view.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from traceview.analysis.calls import CallTable

I64 = npt.NDArray[np.int64]

FRAME_METHODS = (("Choreographer", "doFrame"),)
DISPATCH_METHODS = (("Handler", "dispatchMessage"), ("Looper", "loopOnce"))


@dataclass(frozen=True)
class FrameCalls:
    """Over-budget frame calls of one thread: call rows sorted by start, and how they were chosen.

    `kind` is "doFrame", "dispatch" or "toplevel"; `frames` is the number of frame calls
    considered (over budget or not); `clock` the clock the budget was measured on.
    """

    thread: int
    kind: str
    clock: str
    frames: int
    rows: I64


def _methods_named(calls: CallTable, pairs: tuple[tuple[str, str], ...]) -> npt.NDArray[np.bool_]:
    """Method rows whose simple class name and method name match one of `pairs`."""
    me = calls.trace.methods
    out = np.zeros(len(me), dtype=bool)
    for row in range(len(me)):  # one pass over methods, not calls
        cls = me.class_name[row].replace("/", ".").rstrip(";")
        simple = cls.rsplit(".", 1)[-1].rsplit("$", 1)[-1]
        out[row] = (simple, me.name[row]) in pairs
    return out


def frame_calls(calls: CallTable, thread: int, budget_ns: int, clock: str) -> FrameCalls:
    """The frame calls of thread row `thread` lasting at least `budget_ns` on `clock` (none
    for a row the trace does not have: a trace without threads)."""
    if not 0 <= thread < len(calls.thread_ranges):
        return FrameCalls(thread, "toplevel", clock, 0, np.zeros(0, dtype=np.int64))
    lo, hi = (int(x) for x in calls.thread_ranges[thread])
    method = calls.method[lo:hi]
    kind, rows = "toplevel", np.flatnonzero(calls.depth[lo:hi] == 0)
    for name, pairs in (("doFrame", FRAME_METHODS), ("dispatch", DISPATCH_METHODS)):
        hit = _methods_named(calls, pairs)[method]
        if hit.any():
            kind, rows = name, _outermost(calls.subtree_end[lo:hi] - lo, hit)
            break
    rows = rows.astype(np.int64) + lo
    dur = calls.end(clock, rows) - calls.start(clock, rows)
    keep = rows[dur >= budget_ns]
    return FrameCalls(thread=thread, kind=kind, clock=clock, frames=len(rows), rows=keep)


def _outermost(subtree_end: npt.NDArray[np.integer], hit: npt.NDArray[np.bool_]) -> I64:
    """Local rows where `hit` holds and no ancestor is a hit.

    In pre-order, hit `h` has a hit ancestor iff an earlier hit's subtree reaches past it:
    a running maximum over the hits only (memory follows the hits, not the thread)."""
    rows = np.flatnonzero(hit).astype(np.int64)
    if not len(rows):
        return rows
    reach = np.maximum.accumulate(subtree_end[rows].astype(np.int64))
    inside = np.zeros(len(rows), dtype=bool)
    inside[1:] = reach[:-1] > rows[1:]
    return rows[~inside]


def culprits(calls: CallTable, rows: I64, clock: str) -> tuple[I64, I64]:
    """For each call in `rows` (disjoint subtrees of one thread, in order: frame calls), why
    it was slow: the method with the most exclusive time on `clock` summed over the call's
    subtree (itself included; lowest method row on ties), and that method's heaviest call
    there (the first in pre-order on ties). Returns (call rows of those heaviest calls, the
    methods' summed self ns). The exclusive times come from one pass over the range from the
    first frame to the last one's end (right for every call of a frame's subtree: its
    children are all in the range); then one vectorised pass per frame, never a sort of
    every call (a dominant thread's frames hold tens of millions)."""
    out = np.empty(len(rows), dtype=np.int64)
    own = np.empty(len(rows), dtype=np.int64)
    if not len(rows):
        return out, own
    lo = int(rows[0])
    self_all = calls.excl(clock, slice(lo, int(calls.subtree_end[rows].max())))
    for i, r in enumerate(rows.tolist()):
        end = int(calls.subtree_end[r])
        self_ns = self_all[r - lo : end - lo]
        method = calls.method[r:end]
        sums = np.bincount(method, weights=self_ns)  # by method row: ties go to the lowest
        top = method == int(np.argmax(sums))
        own[i] = int(self_ns[top].sum())  # exact int sum (bincount is float)
        out[i] = r + int(np.argmax(np.where(top, self_ns, -1)))
    return out, own


def paths(calls: CallTable, tops: I64, leaves: I64) -> list[list[int]]:
    """Call rows from each `tops[i]` (excluded) down to `leaves[i]` (included), a descendant
    or the call itself (then the path is empty); one parent step per level for all at once."""
    steps: list[I64] = []
    cur = leaves.copy()
    live = cur != tops
    while live.any():
        steps.append(np.where(live, cur, -1))
        cur = np.where(live, calls.parent[np.maximum(cur, 0)], cur)
        live = cur != tops
    if not steps:
        return [[] for _ in range(len(tops))]
    table = np.stack(steps[::-1], axis=1)  # column 0 = the outermost step
    return [[int(x) for x in row if x >= 0] for row in table.tolist()]
