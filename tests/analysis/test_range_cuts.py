"""A time range laid on a call table without cutting it (analysis/ranges.py): the events that
bracket a bound, found in O(depth) from the call structure, are those a scan of every entry
and exit of the rows near the range finds; and the profile's compiled pass gives the same
statistics however its rows are cut into pieces."""

from __future__ import annotations

from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from support.engine_checks import SETTINGS, traces
from traceview.analysis import workers as _workers
from traceview.analysis.calls import build_calls
from traceview.analysis.profile import cut_parts
from traceview.analysis.ranges import _brackets, cut_thread, near
from traceview.model import Trace


def scanned(rows: np.ndarray, times: np.ndarray, x: int) -> list[int]:
    """The bracketing rows by brute force: the last of `rows` at or before `x` and the next."""
    before = rows[times[rows] <= x]
    if not len(before):
        return [int(rows.min())]
    j = int(before.max())
    after = rows[rows > j]
    return [j] if not len(after) else [j, int(after.min())]


@settings(SETTINGS, max_examples=200)
@given(traces(messy=True), st.data())
def test_brackets_equal_a_scan_of_the_rows_near_the_range(
    trace: Trace, data: st.DataObject
) -> None:
    calls = build_calls(trace)
    clock = calls.clocks[-1]
    times = trace.events.time(clock)
    span = st.integers(int(times.min()) - 3, int(times.max()) + 3)
    lo = data.draw(span)
    hi = data.draw(st.integers(lo, int(times.max()) + 4))
    for t in range(len(trace.threads)):
        seg_lo, seg_hi = near(calls, t, times, lo, hi)
        if not len(seg_lo):
            continue
        rows = np.concatenate([np.arange(a, b) for a, b in zip(seg_lo, seg_hi, strict=True)])
        events = np.concatenate((calls.enter_event[rows], calls.exit_event[rows]))
        for x in (lo, hi):
            got = _brackets(calls, t, times, int(seg_lo[0]), int(seg_hi[-1]), x)
            assert got == scanned(events.astype(np.int64), times, x), (t, x)


@settings(SETTINGS, max_examples=80)
@given(traces(messy=True), st.integers(1, 5), st.data())
def test_range_pieces_equal_one_pass(trace: Trace, workers: int, data: st.DataObject) -> None:
    calls = build_calls(trace)
    clock = calls.clocks[-1]
    times = trace.events.time(clock)
    lo = data.draw(st.integers(int(times.min()) - 3, int(times.max()) + 3))
    hi = data.draw(st.integers(lo, int(times.max()) + 4))
    cuts = [cut_thread(calls, t, calls.clocks, clock, (lo, hi)) for t in range(len(trace.threads))]
    one = cut_parts(calls, cuts, workers=1)
    with mock.patch.object(_workers, "PIECE_ROWS", 1):
        many = cut_parts(calls, cuts, workers=workers)
    assert [p.thread for p in many] == [p.thread for p in one]
    for a, b in zip(one, many, strict=True):
        assert a.n_calls == b.n_calls and a.totals == b.totals
        for col in ("parent", "child", "parent_recursive", "child_recursive", "calls"):
            assert getattr(a.edges, col).tolist() == getattr(b.edges, col).tolist()
        assert {c: v.tolist() for c, v in a.edges.incl.items()} == {
            c: v.tolist() for c, v in b.edges.incl.items()
        }
