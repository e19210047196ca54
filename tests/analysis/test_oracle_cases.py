"""The oracle (tests/oracle.py) checked against numbers worked out by hand from format.md d.4,
then used on hand-made edge cases and on small corpus traces to check the engine."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable

import numpy as np
import pytest

import traceview
from support.corpus import corpus_path
from support.engine_checks import check_all, check_calls, check_invariants, check_profile
from support.oracle import FORCED_EXIT, OPEN, RECURSIVE, SYNTH_ENTRY, UNROLL, oracle, oracle_profile
from support.tracebuild import make_trace
from traceview.analysis.calls import build_calls
from traceview.analysis.profile import profile, thread_profiles
from traceview.model import ThreadTable, Trace

US = 1000  # make_trace takes µs, tables hold ns


def recursion_trace() -> Trace:
    """A calls B calls A (recursive), dual clock; times (cpu, wall) in µs."""
    return make_trace(
        [
            (1, "enter", "a.A.run", 0, 0),
            (1, "enter", "a.B.run", 2, 3),
            (1, "enter", "a.A.run", 5, 10),
            (1, "exit", "a.A.run", 6, 12),
            (1, "exit", "a.B.run", 9, 20),
            (1, "exit", "a.A.run", 10, 25),
        ]
    )


def test_oracle_recursion_by_hand() -> None:
    o = oracle(recursion_trace())
    assert [(c.method, c.depth, c.parent_row, c.flags) for c in o.calls] == [
        (0, 0, -1, 0),
        (1, 1, 0, 0),
        (0, 2, 1, RECURSIVE),
    ]
    # cpu: A charged 0-2 and 9-10, B 2-5 and 6-9, inner A 5-6
    assert [c.incl["cpu"] for c in o.calls] == [10 * US, 7 * US, 1 * US]
    assert [c.excl["cpu"] for c in o.calls] == [3 * US, 6 * US, 1 * US]
    assert [c.incl["wall"] for c in o.calls] == [25 * US, 17 * US, 2 * US]
    assert [c.excl["wall"] for c in o.calls] == [8 * US, 15 * US, 2 * US]
    p = oracle_profile(o)
    assert (p.calls[0], p.recursive_calls[0], p.calls[1]) == (1, 1, 1)
    assert p.incl["cpu"][0] == 10 * US  # the recursive call is not added again
    assert p.excl["cpu"][0] == 4 * US and p.top_excl["cpu"][0] == 3 * US
    assert p.edges == {
        (-1, 0, False, False): (1, {"cpu": 10 * US, "wall": 25 * US}),
        (0, 1, False, False): (1, {"cpu": 7 * US, "wall": 17 * US}),
        (1, 0, False, True): (1, {"cpu": 1 * US, "wall": 2 * US}),
    }
    rel = p.relatives()
    assert rel[(0, True, True)] == {1: (1, 1 * US, 2 * US)}  # parents while recursive
    assert rel[(1, False, False)] == {0: (1, 1 * US, 2 * US)}  # B's children
    assert p.toplevel == {"cpu": 0, "wall": 0}


def unbalanced_trace() -> Trace:
    """Exit X; unroll Y with no enter; Z open, W forced shut by Z's exit; exit Q with no
    enter (adopts Y and Z); R left open; a stray exit of S; cpu only."""
    rows = [
        ("enter", "X", 1),
        ("exit", "X", 2),
        ("unroll", "Y", 4),
        ("enter", "Z", 6),
        ("enter", "W", 7),
        ("exit", "Z", 8),
        ("exit", "Q", 9),
        ("enter", "R", 10),
        ("exit", "S", 11),
    ]
    return make_trace(
        [(7, a, f"p.C.{m}", t, None) for a, m, t in rows],
        clock="thread-cpu",
        methods=[f"p.C.{m}" for m in "XYZWQRS"],
    )


def test_oracle_unbalanced_by_hand() -> None:
    o = oracle(unbalanced_trace())
    x, y, z, w, q, r = range(6)
    assert [(c.method, c.depth, c.parent_row) for c in o.calls] == [
        (q, 0, -1),
        (y, 1, 0),
        (x, 2, 1),
        (z, 1, 0),
        (w, 2, 3),
        (r, 0, -1),
    ]
    assert [c.flags for c in o.calls] == [
        SYNTH_ENTRY,
        SYNTH_ENTRY | UNROLL,
        0,
        0,
        FORCED_EXIT,
        OPEN,
    ]
    assert [(c.enter_event, c.exit_event) for c in o.calls] == [
        (0, 6), (0, 2), (0, 1), (3, 5), (4, 5), (7, 8),
    ]  # fmt: skip
    assert [c.incl["cpu"] // US for c in o.calls] == [8, 3, 1, 2, 1, 1]
    assert [c.excl["cpu"] // US for c in o.calls] == [3, 2, 1, 1, 1, 1]
    assert o.toplevel["cpu"] == [1 * US] and o.thread_total["cpu"] == [10 * US]
    assert o.repairs == {
        "exit-without-enter": 2,
        "open-at-end": 1,
        "unroll-exit": 1,
        "forced-exit": 1,
        "stray-exit-dropped": 1,
    }


@pytest.mark.parametrize("make", [recursion_trace, unbalanced_trace])
def test_oracle_engine_hand_cases(make: Callable[[], Trace]) -> None:
    check_all(make())


def test_oracle_threads_without_records() -> None:
    """Threads listed in the key but with no records: empty ranges, zero totals."""
    base = make_trace([(5, "enter", "a.A.f", 1, 1), (5, "exit", "a.A.f", 3, 4)])
    trace = dataclasses.replace(
        base,
        threads=ThreadTable(id=np.array([3, 5, 9], dtype=np.int64), name=("x", "y", "z")),
        events=dataclasses.replace(base.events, thread=base.events.thread + 1),
    )
    check_all(trace)


def test_oracle_no_records_with_threads() -> None:
    base = make_trace([])
    check_all(dataclasses.replace(base, threads=ThreadTable(id=np.array([3]), name=("x",))))


def test_oracle_no_threads_at_all() -> None:
    """A trace with no threads and no records: an empty call table and empty profiles."""
    trace = make_trace([])
    o = oracle(trace)
    calls = build_calls(trace)
    check_calls(calls, o)
    check_profile(profile(calls), oracle_profile(o), trace.clocks)
    assert thread_profiles(calls) == []


def test_oracle_empty_selection_keeps_the_clock() -> None:
    """No thread selected: an empty profile on the clock asked for (was: both clocks)."""
    calls = build_calls(recursion_trace())
    p = profile(calls, threads=[], clock="cpu")
    assert p.clocks == ("cpu",) and list(p.incl) == ["cpu"]


SMALL_CORPUS = [
    "aosp-perflib/basic.trace",
    "aosp-perflib/basic-api10.trace",
    "aosp-perflib/exception.trace",
    "aosp-perflib/mismatched.trace",
    "aosp-perflib-studio/basic-special_char.trace",
    "forever001-launcher/app.trace",
    "jagormley-jagandroidframework/dmtrace.trace",
    "sentry-vroom-specto/minified.trace",
    "sentry-vroom-specto/data_file_overflow.trace",
    "sentry-vroom-specto/no_methods_no_records.trace",
    "sentry-vroom-specto/method_id_max.trace",
    "grigory-rylov-amp/legacy.trace",
    "pmadishetti9-profilertester/cpu-art-new.trace",
    "firefox-profiler/art-trace-regular.trace.gz",
]


@pytest.mark.parametrize("rel", SMALL_CORPUS)
def test_oracle_corpus(rel: str) -> None:
    trace = traceview.load(corpus_path(rel))
    trace.validate()
    o = oracle(trace)
    calls = build_calls(trace)
    check_calls(calls, o)
    check_invariants(calls, o)
    check_profile(profile(calls), oracle_profile(o), trace.clocks)
    for t, p in enumerate(thread_profiles(calls)):
        check_profile(p, oracle_profile(o, [t]), trace.clocks, relatives=len(o.calls) < 500)


@pytest.mark.parametrize("cycle", ["A", "AB", "ABC"])
def test_oracle_deep_recursion(cycle: str) -> None:
    """1500 nested calls (direct or mutual recursion) on two threads; the second thread
    starts 400 frames deep (exits with no enter) and ends 400 frames deep (left open)."""
    names = [f"r.R.{cycle[i % len(cycle)]}" for i in range(1500)]
    events = [(1, "enter", m, i, 2 * i) for i, m in enumerate(names)]
    events += [(1, "exit", m, 1500 + i, 3500 + i) for i, m in enumerate(reversed(names))]
    events += [(2, "exit", m, i, i) for i, m in enumerate(names[:400])]
    events += [(2, "enter", m, 500 + i // 3, 600 + i) for i, m in enumerate(names[:400])]
    check_all(make_trace(events))


def test_oracle_deeper_than_65535() -> None:
    """70 000 nested calls (the engine changes its level dtype past 0xFFFF), mutual
    recursion, the innermost 20 000 frames left open."""
    names = [f"d.D.{'AB'[i % 2]}" for i in range(70_000)]
    events = [(1, "enter", m, i, i) for i, m in enumerate(names)]
    events += [(1, "exit", m, 70_000 + i, 90_000 + 2 * i) for i, m in enumerate(names[::-1])]
    trace = make_trace(events[: len(events) - 20_000])
    o = oracle(trace)
    calls = build_calls(trace)
    check_calls(calls, o)
    check_profile(profile(calls), oracle_profile(o), trace.clocks)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_oracle_many_methods(seed: int) -> None:
    """800 methods on two threads (the engine switches to sparse edge keys), random walks
    with recursion, unrolls, mismatched and stray exits."""
    rnd = random.Random(seed)
    names = [f"m{i // 40}.C{i % 7}.f{i}" for i in range(800)]
    stacks: dict[int, list[str]] = {1: [], 2: []}
    events: list[tuple[int, str, str, int | None, int | None]] = []
    for i in range(3000):
        tid = rnd.choice([1, 2])
        stack = stacks[tid]
        roll = rnd.random()
        if roll < 0.5 or not stack:
            m = rnd.choice(names if roll > 0.1 else names[:5])
            action = "enter" if roll < 0.48 or not stack else "exit"
            if action == "enter":
                stack.append(m)
        elif roll < 0.97:
            action, m = rnd.choice(["exit", "exit", "unroll"]), stack.pop()
        else:
            action, m = "exit", rnd.choice(stack)  # mismatched: closes frames above it
            del stack[stack.index(m) :]
        events.append((tid, action, m, i, 2 * i))
    check_all(make_trace(events, methods=names))
