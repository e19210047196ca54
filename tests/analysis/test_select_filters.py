"""The call-table filters (`analysis.select`, and `mycode.keep_calls` / `select_rows`, which
share its re-linking) on generated messy traces: valid tables, and the filters agree where
their definitions meet."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.engine_checks import traces
from support.tracebuild import make_trace
from traceview.analysis import filters as select
from traceview.analysis.calls import CallTable, build_calls
from traceview.analysis.filters import select_rows
from traceview.analysis.mycode import keep_calls
from traceview.analysis.ranges import overlapping
from traceview.model import Trace

COLUMNS = ("method", "depth", "parent", "subtree_end", "enter_event", "exit_event", "flags")


def same(a: CallTable, b: CallTable) -> None:
    a.validate()
    b.validate()
    for name in (*COLUMNS, "thread_ranges"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(traces(messy=True), st.integers(0, 2**32 - 1))
def test_filters_agree(trace: Trace, seed: int) -> None:
    trace.validate()
    calls = build_calls(trace)
    rng = np.random.default_rng(seed)
    clock = "wall" if "wall" in calls.clocks else "cpu"
    times = np.concatenate((calls.start(clock), calls.end(clock)))
    lo, hi = sorted(rng.choice(times, 2).tolist()) if len(times) else (0, 1)
    # a time range keeps the ancestors of nearly every kept call (closed upward): it equals
    # folding the dropped calls into kept callers
    late = select.time_range(calls, lo, hi, clock)
    start, end = calls.start(clock), calls.end(clock)
    overlap = overlapping(calls, clock, lo, hi)
    zero = (start == end) & (start >= lo) & (start < hi)
    assert np.array_equal(overlap, ((start < hi) & (end > lo)) | zero)  # the rule, by numpy
    same(late, keep_calls(calls, overlap))
    closed = np.flatnonzero(overlap)
    par = calls.parent[closed]
    if bool(np.all(overlap[par[par >= 0]])):  # `select_rows` needs every ancestor
        same(late, select_rows(calls, closed))
    # focus keeps whole subtrees (closed downward): again no folding
    methods = rng.choice(len(trace.methods), 2).tolist()
    focused = select.focus(calls, methods)
    hit = np.isin(calls.method, methods)
    inside = np.zeros(len(calls), dtype=bool)
    for i in np.flatnonzero(hit).tolist():
        inside[i : int(calls.subtree_end[i])] = True
    same(focused, keep_calls(calls, inside))
    # any mask: folded calls keep every kept call, each under its nearest kept ancestor
    keep = rng.random(len(calls)) < 0.5
    folded = keep_calls(calls, keep)
    folded.validate()
    rows = np.flatnonzero(keep)
    assert np.array_equal(folded.enter_event, calls.enter_event[rows])
    for j, i in enumerate(rows.tolist()):
        up = int(calls.parent[i])
        while up >= 0 and not keep[up]:
            up = int(calls.parent[up])
        want = -1 if up < 0 else int(np.searchsorted(rows, up))
        assert int(folded.parent[j]) == want
    # threads: the rows of the chosen threads, other ranges empty
    chosen = [t for t in range(len(trace.threads)) if rng.random() < 0.5]
    picked = select.threads(calls, chosen)
    picked.validate()
    assert sorted(set(picked.thread.tolist())) == sorted(
        {t for t in chosen if calls.thread_ranges[t, 1] > calls.thread_ranges[t, 0]}
    )


def test_time_range_zero_length_call_at_the_end_of_a_dropped_caller() -> None:
    # h [0, 15] overlaps [10, 20); f [0, 10] does not; g, zero-length at 10, does: g goes
    # under h (it used to become a root inside h's subtree: an invalid table)
    trace = make_trace(
        [
            (1, "enter", "a.A.h", 0, 0),
            (1, "enter", "a.A.f", 0, 0),
            (1, "enter", "a.A.g", 10, 10),
            (1, "exit", "a.A.g", 10, 10),
            (1, "exit", "a.A.f", 10, 10),
            (1, "exit", "a.A.h", 15, 15),
        ]
    )
    trace.validate()
    calls = build_calls(trace)
    late = select.time_range(calls, 10_000, 20_000)
    late.validate()
    assert late.method.tolist() == [0, 2]
    assert late.parent.tolist() == [-1, 0] and late.depth.tolist() == [0, 1]
    same(late, keep_calls(calls, overlapping(calls, "wall", 10_000, 20_000)))
