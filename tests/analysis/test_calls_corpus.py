"""Every readable corpus trace: the call table and the profile (all threads, each thread, a
time range) satisfy their invariants."""

from __future__ import annotations

from pathlib import Path

import pytest

import traceview
from support.corpus import readable
from traceview.analysis.calls import build_calls
from traceview.analysis.profile import profile, thread_profiles


@pytest.mark.parametrize("path", readable(), ids=lambda p: p.name)
def test_corpus_invariants(path: Path) -> None:
    trace = traceview.load(path)
    trace.validate()
    calls = build_calls(trace)
    calls.validate()
    prof = profile(calls)
    prof.validate()
    assert prof.estimates == trace.header.sampled
    for part in thread_profiles(calls):
        part.validate()
    if len(calls):
        clock = "wall" if "wall" in trace.clocks else "cpu"
        start = calls.start(clock)
        lo, hi = int(start.min()), int(calls.end(clock).max())
        mid = (lo + hi) // 2
        for rng in ((lo, mid), (mid, hi + 1)):
            part = profile(calls, time_range=rng)
            part.validate()
            assert part.total(clock) <= prof.total(clock)
