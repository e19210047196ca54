"""Property tests for `profile(..., time_range=)`: on the range's clock the clipped profile
equals the oracle run on the trace with its times clamped into the range (each record's delta
becomes its overlap with the range), counting the calls that overlap it; a range covering the
whole trace changes nothing on either clock."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from support.engine_checks import SETTINGS, check_profile, traces
from support.oracle import clip_trace, oracle, oracle_profile
from traceview.analysis.calls import build_calls
from traceview.analysis.profile import profile, thread_profiles
from traceview.model import Trace


@st.composite
def ranged(draw: st.DrawFn) -> tuple[Trace, int, int]:
    """A trace and a range (lo, hi) on its range clock, its ends often on record times."""
    trace = draw(traces(messy=True))
    col = trace.events.time("wall" if "wall" in trace.clocks else "cpu").tolist()
    near = st.sampled_from(col).flatmap(lambda t: st.integers(t - 1500, t + 1500))
    ends = st.one_of(st.sampled_from(col), near)
    lo, hi = sorted((draw(ends), draw(ends)))
    return trace, lo, hi


@settings(SETTINGS, max_examples=150)
@given(ranged())
def test_oracle_time_range(case: tuple[Trace, int, int]) -> None:
    trace, lo, hi = case
    trace.validate()
    clock = "wall" if "wall" in trace.clocks else "cpu"
    clipped, keep = clip_trace(trace, clock, lo, hi)
    clipped.validate()
    o = oracle(clipped)
    calls = build_calls(trace)
    got = profile(calls, clock=clock, time_range=(lo, hi))
    check_profile(got, oracle_profile(o, keep=keep), (clock,))
    for t, p in enumerate(thread_profiles(calls, clock=clock, time_range=(lo, hi))):
        check_profile(p, oracle_profile(o, [t], keep=keep), (clock,), relatives=False)
    both = profile(calls, time_range=(lo, hi))  # cpu, if any, is interpolated: invariants only
    both.validate()
    assert both.calls.tolist() == got.calls.tolist()
    assert both.incl[clock].tolist() == got.incl[clock].tolist()


@settings(max_examples=60, deadline=None)
@given(traces(messy=True))
def test_oracle_whole_range_changes_nothing(trace: Trace) -> None:
    trace.validate()
    col = trace.events.time("wall" if "wall" in trace.clocks else "cpu")
    calls = build_calls(trace)
    whole = profile(calls, time_range=(int(col.min()), int(col.max()) + 1))
    check_profile(whole, oracle_profile(oracle(trace)), trace.clocks)
