"""`direct_profile` (what `traceview -r` computes, thread by thread without a call table)
equals `profile(build_calls(trace))` exactly: every per-method, per-thread and edge array and
the diagnostics, on generated messy traces, the corpus and generated benchmark-like traces."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import traceview
from support.corpus import readable
from support.engine_checks import traces
from support.tracebuild import make_trace, many_threads
from traceview.analysis.calls import build_calls
from traceview.analysis.direct import direct_profile
from traceview.analysis.profile import Profile, profile
from traceview.analysis.query import default_clock
from traceview.exporters.dump import regress
from traceview.model import Clock, EventTable, ThreadTable, Trace
from traceview.synth import generate


def edge_rows(p: Profile) -> list[tuple[object, ...]]:
    e = p.edges
    rows = zip(
        e.parent.tolist(),
        e.child.tolist(),
        e.parent_recursive.tolist(),
        e.child_recursive.tolist(),
        e.calls.tolist(),
        *[e.incl[c].tolist() for c in p.clocks],
        strict=True,
    )
    return sorted(rows)


def assert_same(trace: Trace) -> None:
    calls = build_calls(trace)
    want = profile(calls)
    got = direct_profile(trace)
    got.validate()
    assert got.threads == want.threads and got.clocks == want.clocks
    for name in ("calls", "recursive_calls", "thread_calls"):
        assert np.array_equal(getattr(got, name), getattr(want, name)), name
    for name in ("incl", "excl", "top_excl", "thread_total"):
        for c in want.clocks:
            assert np.array_equal(getattr(got, name)[c], getattr(want, name)[c]), (name, c)
    assert got.toplevel == want.toplevel
    assert edge_rows(got) == edge_rows(want)
    assert got.diagnostics == calls.diagnostics
    clock = default_clock(trace)
    diagnostics = [*trace.diagnostics, *calls.diagnostics]
    assert regress(got, trace.methods, [*trace.diagnostics, *got.diagnostics], clock) == regress(
        want, trace.methods, diagnostics, clock
    )


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(traces(messy=True))
def test_streamed_equals_call_table_profile(trace: Trace) -> None:
    trace.validate()
    assert_same(trace)


def test_streamed_on_generated_traces() -> None:
    runs: tuple[tuple[int, Clock], ...] = ((1, "dual"), (2, "wall"), (3, "thread-cpu"))
    for seed, clock in runs:
        trace = generate(records=40_000, threads=6, seed=seed, clock=clock)
        trace.validate()
        assert_same(trace)


def test_streamed_searching_the_stacks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past `COUNTS_LIMIT` threads x methods the recursion check searches each stack instead
    of counting open calls per method: the same numbers."""
    import traceview.analysis.walk as walk

    monkeypatch.setattr(walk, "COUNTS_LIMIT", 0)
    trace = generate(records=40_000, threads=12, seed=11)
    trace.validate()
    assert_same(trace)


def test_streamed_with_two_workers() -> None:
    trace = generate(records=30_000, threads=6, seed=7)
    trace.validate()
    one, two = direct_profile(trace, workers=1), direct_profile(trace, workers=2)
    for c in trace.clocks:
        assert np.array_equal(one.excl[c], two.excl[c])
        assert np.array_equal(one.incl[c], two.incl[c])
    assert edge_rows(one) == edge_rows(two)


def test_streamed_single_call() -> None:
    trace = make_trace([(1, "enter", "a.A.f", 0, 0), (1, "exit", "a.A.f", 5, 9)])
    trace.validate()
    assert_same(trace)


def test_streamed_without_events_and_thread_without_records() -> None:
    empty = make_trace([], methods=["a.A.f"])
    empty.validate()
    assert_same(empty)
    trace = make_trace([(1, "enter", "a.A.f", 0, 0), (1, "exit", "a.A.f", 5, 9)])
    idle = replace(
        trace,
        threads=ThreadTable(id=np.array([1, 2], dtype=np.int64), name=("main", None)),
    )
    idle.validate()
    assert_same(idle)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(traces(messy=True, threads=(60, 70)))
def test_streamed_many_threads(trace: Trace) -> None:
    trace.validate()
    assert_same(trace)


@pytest.mark.parametrize("path", readable(), ids=lambda p: p.name)
def test_streamed_on_corpus(path: Path) -> None:
    trace = traceview.load(path)
    trace.validate()
    assert_same(trace)


@pytest.mark.parametrize("interleaved", [False, True])
def test_thousands_of_threads(interleaved: bool) -> None:
    assert_same(many_threads(3000, interleaved))


def open_at_start(n: int) -> Trace:
    """`n` threads, each with two frames open when tracing began (B inside A: the thread's
    records are B's exit, a call of B, then A's exit), records interleaved across threads;
    then one more thread whose only record, the file's last, enters A."""
    method = np.append(np.tile(np.array([1, 1, 1, 0]), n), 0)
    action = np.append(np.tile(np.array([1, 0, 1, 1]), n), 0)
    thread = np.repeat(np.arange(n + 1), 4)[: 4 * n + 1]
    order = np.lexsort((thread, np.arange(4 * n + 1) % 4 + (thread == n) * 4))
    t = np.arange(4 * n + 1, dtype=np.int64) * 1000
    events = EventTable(
        thread=thread[order].astype(np.uint16),
        method=method[order].astype(np.int32),
        action=action[order].astype(np.uint8),
        cpu=t // 2,
        wall=t,
    )
    trace = replace(many_threads(n + 1, interleaved=True), events=events)
    trace.validate()
    return trace


def test_thousands_of_threads_open_at_start() -> None:
    """More frames open when tracing began than the edge table's first room: the compiled
    pass grows its table while it enters them, then counts every record once."""
    assert_same(open_at_start(3000))
