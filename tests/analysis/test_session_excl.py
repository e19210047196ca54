"""The viewer's warm-up keeps no per-call exclusive column (two int64 columns per call,
530 MB at 70M records): a call look-up answers the same from the call's children; and the
exclusive times of a subtree slice."""

from __future__ import annotations

from hypothesis import given, settings

from support.engine_checks import SETTINGS, traces
from traceview.analysis import Session
from traceview.analysis.calls import build_calls
from traceview.model import Trace
from traceview.viewer.answers import call_answer


@settings(SETTINGS, max_examples=30)
@given(traces(messy=True))
def test_warm_keeps_no_exclusive_column_and_look_ups_agree(trace: Trace) -> None:
    s = Session(trace)
    s.warm()
    assert all(s.excl(c, build=False) is None for c in s.clocks)
    rows = range(len(s.calls))
    summed = [call_answer(s, r) for r in rows]
    for c in s.clocks:
        s.excl(c)  # what the report builds for its many look-ups
    assert [call_answer(s, r) for r in rows] == summed


@settings(SETTINGS, max_examples=30)
@given(traces(messy=True))
def test_exclusive_times_of_a_subtree_slice(trace: Trace) -> None:
    """`CallTable.excl` over one call's subtree (the frame budget's culprits) equals the whole
    table's over those rows: the slice's first row has its parent outside it."""
    calls = build_calls(trace)
    for c in calls.clocks:
        whole = calls.excl(c).tolist()
        for r in range(len(calls)):
            end = int(calls.subtree_end[r])
            assert calls.excl(c, slice(r, end)).tolist() == whole[r:end]
