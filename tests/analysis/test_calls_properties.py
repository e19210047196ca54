"""Property tests: the vectorised call table and profile equal the plain stack-walking oracle
(tests/oracle.py) on random event sequences, balanced or not."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from support.oracle import oracle, oracle_profile
from support.tracebuild import make_trace
from traceview.analysis.calls import build_calls
from traceview.analysis.profile import profile
from traceview.model import Clock, Trace

METHODS = ["a.A.f", "a.A.g", "b.B.h", "b.B.k"]

step = st.tuples(
    st.integers(0, 2),  # thread
    st.sampled_from(["enter", "enter", "exit", "exit", "unroll"]),
    st.integers(0, len(METHODS) - 1),
    st.integers(0, 3),  # cpu delta
    st.integers(0, 3),  # extra wall delta
)


def build(steps: list[tuple[int, str, int, int, int]], clock: Clock = "dual") -> Trace:
    cpu: dict[int, int] = {}
    wall: dict[int, int] = {}
    events = []
    for thread, action, m, dc, dw in steps:
        cpu[thread] = cpu.get(thread, 5) + dc
        wall[thread] = wall.get(thread, 7) + dc + dw
        events.append(
            (
                thread + 1,
                action,
                METHODS[m],
                cpu[thread] if clock != "wall" else None,
                wall[thread],
            )
        )
    return make_trace(events, clock=clock, methods=METHODS)


def check(trace: Trace) -> None:
    calls = build_calls(trace)
    calls.validate()
    ref = oracle(trace)
    assert len(calls) == len(ref.calls)
    got = list(
        zip(
            calls.thread.tolist(),
            calls.method.tolist(),
            calls.depth.tolist(),
            calls.parent.tolist(),
            calls.enter_event.tolist(),
            calls.exit_event.tolist(),
            calls.flags.tolist(),
            strict=True,
        )
    )
    want = [
        (c.thread, c.method, c.depth, c.parent_row, c.enter_event, c.exit_event, c.flags)
        for c in ref.calls
    ]
    assert got == want
    prof = profile(calls)
    prof.validate()
    rp = oracle_profile(ref)
    for clock in trace.clocks:
        for m in range(len(trace.methods)):
            assert prof.excl[clock][m] == rp.excl[clock].get(m, 0)
            assert prof.incl[clock][m] == rp.incl[clock].get(m, 0)
            assert prof.top_excl[clock][m] == rp.top_excl[clock].get(m, 0)
            assert prof.calls[m] == rp.calls.get(m, 0)
            assert prof.recursive_calls[m] == rp.recursive_calls.get(m, 0)
        e = prof.edges
        edges = {
            (int(p), int(c), bool(pr), bool(cr)): (int(n), int(i))
            for p, c, pr, cr, n, i in zip(
                e.parent,
                e.child,
                e.parent_recursive,
                e.child_recursive,
                e.calls,
                e.incl[clock],
                strict=True,
            )
        }
        assert edges == {k: (n, inc[clock]) for k, (n, inc) in rp.edges.items()}


@settings(max_examples=150, deadline=None)
@given(st.lists(step, min_size=1, max_size=60))
def test_calls_match_reference_on_random_sequences(
    steps: list[tuple[int, str, int, int, int]],
) -> None:
    check(build(steps))


@settings(max_examples=50, deadline=None)
@given(st.lists(step, min_size=1, max_size=30), st.sampled_from(["thread-cpu", "wall"]))
def test_single_clock_traces(steps: list[tuple[int, str, int, int, int]], clock: Clock) -> None:
    check(build(steps, clock))


def test_deep_balanced_recursion() -> None:
    steps = [(0, "enter", i % 2, 1, 0) for i in range(300)]
    steps += [(0, "exit", i % 2, 1, 1) for i in reversed(range(300))]
    trace = build(steps)
    check(trace)
    calls = build_calls(trace)
    assert int(np.count_nonzero(calls.flags & 1)) == 298
