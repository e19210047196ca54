"""The viewer's merged tree of a time range (`Session.tree` with t0/t1) equals merging the
calls that overlap the range with `keep_calls`, including a zero-length call at its caller's
end (where the session falls back from its direct cut)."""

from __future__ import annotations

import numpy as np

from support.tracebuild import make_trace
from traceview.analysis.calltree import CallTree, top_down
from traceview.analysis.mycode import keep_calls
from traceview.model import Trace
from traceview.web.session import Session


def _trace() -> Trace:
    ev = [
        (1, "enter", "a.A.p", 0, 0),
        (1, "enter", "a.A.c", 5, 5),
        (1, "exit", "a.A.c", 5, 5),  # zero-length, at the very end of its caller
        (1, "exit", "a.A.p", 5, 5),
        (1, "enter", "a.A.q", 6, 6),
        (1, "enter", "a.A.c", 8, 8),
        (1, "exit", "a.A.c", 9, 9),
        (1, "exit", "a.A.q", 12, 12),
        (2, "enter", "a.A.q", 1, 1),
        (2, "enter", "a.A.p", 2, 3),
        (2, "exit", "a.A.p", 7, 9),
        (2, "exit", "a.A.q", 11, 13),
    ]
    return make_trace(ev)


def _same(a: CallTree, b: CallTree) -> bool:
    cols = [(a.parent, b.parent), (a.method, b.method), (a.depth, b.depth), (a.calls, b.calls)]
    cols += [(a.incl[c], b.incl[c]) for c in a.clocks] + [(a.excl[c], b.excl[c]) for c in a.clocks]
    return all(np.array_equal(x, y) for x, y in cols)


def test_range_tree_equals_merging_the_overlapping_calls() -> None:
    trace = _trace()
    trace.validate()
    session = Session(trace)
    for threads in (None, "0", "1"):
        for t0 in range(14):
            for t1 in range(t0, 15):
                q = session.query("wall", threads, str(t0), str(t1))
                assert q.time_range is not None
                lo, hi = q.time_range
                calls = session.selection(q)
                start, end = calls.start("wall"), calls.end("wall")
                overlap = (start < hi) & ((end > lo) | ((start == end) & (start >= lo)))
                want = top_down(keep_calls(calls, overlap), q.threads)
                assert _same(session.tree(q), want), (threads, t0, t1)
