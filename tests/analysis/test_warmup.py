"""The viewer's warm-up (analysis/warmup.py): it waits while a request is answered, shares its
builds with requests, and leaves a session that keeps only the events' time columns and
answers every view as a fresh session does."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import given, settings

from support.engine_checks import SETTINGS, edge_dict, traces
from traceview.analysis import Session
from traceview.analysis.timecols import RecordsReleased
from traceview.model import Trace
from traceview.synth import generate
from traceview.viewer.answers import call_answer, flame_answer, timeline_answer


def test_warm_up_waits_while_a_request_is_answered() -> None:
    """A warm-up started while a request is in flight builds nothing until it is answered,
    then everything (before, the warm-up took the cores from the first request)."""
    s = Session(generate(records=20_000, threads=4, seed=5))
    with s.gate.serving():
        warm = threading.Thread(target=s.warm)
        warm.start()
        s.gate.wait_for_waiter()  # (its first step is the gate: it cannot end before it)
        assert s.gate.waits > 0, "the warm-up ended without waiting for the request"
        assert not s.has_calls
        assert not s._cache.keys("profile")
    warm.join()  # (the request is answered: nothing holds it now)
    assert s.has_calls and s._cache.keys("profile") and s._cache.keys("tree")


def test_a_request_during_the_warm_up_shares_its_build() -> None:
    """The tree a flame request asks for while the warm-up runs is built once: the warm-up's
    step and the request get the same object."""
    s = Session(generate(records=20_000, threads=4, seed=6))
    warm = threading.Thread(target=s.warm)
    warm.start()
    with s.gate.serving():
        asked = s.top_down(s.query(clock="cpu"))
    warm.join()
    assert s.top_down(s.query()) is asked


@settings(SETTINGS, max_examples=25)
@given(traces(messy=True))
def test_after_the_warm_up_only_time_columns_are_kept_and_views_agree(trace: Trace) -> None:
    """The warm-up drops the events' thread, method and action columns (the call table says
    what they said; 7 bytes a record); every view equals a fresh session's, and reading a
    dropped column fails loudly instead of giving an empty one."""
    fresh, warmed = Session(trace), Session(trace)
    warmed.warm()
    for name in ("thread", "method", "action"):
        with pytest.raises(RecordsReleased):
            getattr(warmed.trace.events, name)
    assert len(warmed.trace.events) == len(trace.events)
    for c in fresh.clocks:
        q = fresh.query(clock=c)
        assert edge_dict(warmed.profile(q)) == edge_dict(fresh.profile(q))
        assert flame_answer(warmed, "graph", q) == flame_answer(fresh, "graph", q)
        for t in range(len(trace.threads)):
            one = fresh.query(threads=[t], clock=c)
            assert flame_answer(warmed, "bottomup", one) == flame_answer(fresh, "bottomup", one)
    assert [call_answer(warmed, r) for r in range(len(fresh.calls))] == [
        call_answer(fresh, r) for r in range(len(fresh.calls))
    ]
    for t in range(len(trace.threads)):
        assert timeline_answer(warmed, t, 2, 1) == timeline_answer(fresh, t, 2, 1)
    assert np.array_equal(warmed.calls.thread, fresh.calls.thread)
    assert [warmed.thread_axis_span(t) for t in range(len(trace.threads))] == [
        fresh.thread_axis_span(t) for t in range(len(trace.threads))
    ]
