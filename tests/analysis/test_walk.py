"""The compiled passes' drivers (analysis/walk.py): the counts of a trace's records counted
as two halves at once equal the counts of one pass, whatever the halves hold."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from traceview.analysis import walk


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 400), st.integers(1, 6))
def test_two_halves_count_as_one_pass(seed: int, n: int, threads: int) -> None:
    rng = np.random.default_rng(seed)
    thread = rng.integers(0, threads, n).astype(np.uint8)
    action = rng.integers(0, 2, n).astype(np.uint8)
    method = rng.integers(0, 9, n).astype(np.int32)
    one = walk.new_counts(threads + 1)  # (a thread row without records, too)
    walk.count_more((thread, action, method), 0, one, np.zeros((0, 2), dtype=np.int64))
    half = int(rng.integers(0, n + 1))
    parts = []
    for lo, hi in ((0, half), (half, n)):
        part = walk.new_counts(threads + 1)
        events = (thread[lo:hi], action[lo:hi], method[lo:hi])
        walk.count_more(events, lo, part, np.zeros((0, 2), dtype=np.int64))
        parts.append(part)
    assert np.array_equal(walk.joined(*parts), one)


def test_counts_of_a_large_trace_on_two_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    events = (
        rng.integers(0, 5, 5000).astype(np.uint8),
        rng.integers(0, 2, 5000).astype(np.uint8),
        rng.integers(0, 9, 5000).astype(np.int32),
    )
    whole = walk.counts_of(events, 5)
    monkeypatch.setattr(walk, "HALVES", 100)
    monkeypatch.setenv("TRACEVIEW_WORKERS", "2")
    assert np.array_equal(walk.counts_of(events, 5), whole)


def test_the_call_table_keeps_the_records_its_pairing_counted() -> None:
    """The viewer's session asks each thread's records once the call table is built: the
    pairing's counts, not a second count over the thread column."""
    from traceview.analysis.calls import build_calls, thread_sizes
    from traceview.analysis.session import Session
    from traceview.synth import generate

    trace = generate(records=20_000, threads=5, seed=2)
    expected = thread_sizes(trace.events.thread, len(trace.threads))
    thread_records = build_calls(trace).thread_records
    assert thread_records is not None
    assert np.array_equal(thread_records, expected)
    session = Session(trace)
    session.release_records()
    assert np.array_equal(session.thread_records, expected)
