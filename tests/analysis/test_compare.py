"""`analysis.compare` on generated runs: the planted changes are found exactly — a method 30 %
slower in 3 of 5 runs, one 2x slower in all, one call moved under another parent (same
per-method exclusive times, different paths) — and 5 vs 5 runs drawn from one distribution
give no slower or faster row at the documented confidence; paths add up; threads meet by
name and by "main"; the selection applies to both sides."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from support.plant import ALWAYS, NOISY, SOMETIMES, a_call_to_move, planted_runs, reshape
from support.tracebuild import make_trace
from traceview.analysis import Session
from traceview.analysis.ask import Ask
from traceview.analysis.calls import build_calls
from traceview.analysis.compare import Comparison, compare, summarise_run
from traceview.analysis.diff import Thresholds
from traceview.analysis.paths import PathDiff
from traceview.analysis.view import View
from traceview.model import Trace
from traceview.synth import generate


def sessions(traces: list[Trace]) -> list[Session]:
    return [Session(t) for t in traces]


def states(c: Comparison, paths: PathDiff, word: str) -> set[tuple[str, ...]]:
    return {tuple(c.path_names(paths, i)) for i in range(len(paths)) if paths.state_name(i) == word}


def method_states(c: Comparison, word: str) -> set[str]:
    m = c.methods
    return {m.full_name(i) for i in range(len(m)) if m.state_name(i) == word}


@pytest.fixture(scope="module")
def planted() -> Comparison:
    base, cand = planted_runs(moved=True)
    return compare(sessions(base), sessions(cand))


def moved_paths() -> tuple[set[tuple[str, ...]], set[tuple[str, ...]]]:
    """The paths of the moved call's subtree before and after the move, by names."""
    trace = generate(records=20_000, threads=3, seed=1, balanced=True)
    call, under = a_call_to_move(trace, avoid=(SOMETIMES, ALWAYS, NOISY))
    calls = build_calls(trace)
    name = trace.methods.full_name

    def path(row: int) -> tuple[str, ...]:
        out = []
        while row >= 0:
            out.append(name(int(calls.method[row])))
            row = int(calls.parent[row])
        return ("main", *out[::-1])  # the generator's busiest thread is the main thread

    assert trace.threads.name[int(calls.thread[call])] == "main"
    old = {path(r) for r in range(call, int(calls.subtree_end[call]))}
    head = path(call)[:-1]
    new = {path(under) + p[len(head) :] for p in old}
    return old, new


def test_planted_methods_are_found_exactly(planted: Comparison) -> None:
    assert method_states(planted, "slower") == {SOMETIMES, ALWAYS}
    assert not method_states(planted, "faster")
    assert not method_states(planted, "new") and not method_states(planted, "gone")
    # the gate agrees, and the noisy method stays within noise
    assert {planted.methods.full_name(i) for i in planted.regressions} == {SOMETIMES, ALWAYS}
    assert NOISY in method_states(planted, "noise")


def test_planted_paths_are_found_exactly(planted: Comparison) -> None:
    p = planted.paths
    assert p is not None
    slower = states(planted, p, "slower")
    # every path of the two slower methods that is gated (≥ 1 ms on either side), nothing else
    gated_ends = {
        tuple(planted.path_names(p, i))
        for i in range(len(p))
        if p.gated[i] and planted.frames.name(int(p.frame[i])) in (SOMETIMES, ALWAYS)
    }
    assert slower == gated_ends and len(slower) >= 2
    assert {s[-1] for s in slower} == {SOMETIMES, ALWAYS}
    assert not states(planted, p, "faster")
    old, new = moved_paths()
    assert states(planted, p, "gone") == old
    assert states(planted, p, "new") == new
    # a moved path keeps its numbers: the median exclusive time under the new parent is the
    # old one's (within the runs' jitter)
    gone = next(i for i in range(len(p)) if tuple(planted.path_names(p, i)) == min(old, key=len))
    came = next(i for i in range(len(p)) if tuple(planted.path_names(p, i)) == min(new, key=len))
    assert p.incl.cand[came] == pytest.approx(p.incl.base[gone], rel=0.05)
    assert p.calls.base[came] == 0 and p.calls.cand[gone] == 0


def noisy_methods(trace: Trace, n: int = 5) -> list[str]:
    """The `n` methods with the most exclusive CPU time."""
    calls = build_calls(trace)
    excl = np.bincount(calls.method, weights=calls.excl("cpu"), minlength=len(trace.methods))
    return [trace.methods.full_name(int(m)) for m in np.argsort(-excl)[:n]]


def null_runs(trace: Trace, n: int, sigma: float, seed: int) -> tuple[list[Trace], list[str]]:
    """`n` runs of one app drawn from one distribution: every gap jittered ±2 %, and the five
    busiest methods' exclusive time scaled per run by a log-normal factor (σ = `sigma`, as
    run-to-run noise is multiplicative and skewed)."""
    busy = noisy_methods(trace)
    rng = np.random.default_rng(seed)
    factors = rng.lognormal(0.0, sigma, (n, len(busy)))
    runs = [
        reshape(
            trace, seed=seed * 100 + i, slower=dict(zip(busy, factors[i].tolist(), strict=True))
        )
        for i in range(n)
    ]
    return runs, busy


def test_five_vs_five_from_one_distribution_is_within_noise() -> None:
    trace = generate(records=20_000, threads=3, seed=3, balanced=True)
    runs, _ = null_runs(trace, 10, 0.05, seed=11)
    c = compare(sessions(runs[:5]), sessions(runs[5:]))
    p = c.paths
    assert p is not None
    for word in ("slower", "faster", "new", "gone"):
        assert not method_states(c, word), word
        assert not states(c, p, word), word


def test_unchanged_rows_are_called_slower_or_faster_at_the_documented_rate() -> None:
    """Forty independent 5 vs 5 comparisons of runs whose five busiest methods vary by ±20 %
    (log-normal) run to run: among those methods' rows, each direction is called in at most
    5 % of the cases at 95 % confidence (plus 2.5 σ of the observed rate: 200 cases)."""
    trace = generate(records=4000, threads=1, seed=3, balanced=True)
    counts = {"slower": 0, "faster": 0}
    trials = moved = 0
    for k in range(40):
        runs, busy = null_runs(trace, 10, 0.20, seed=1000 + k)
        summaries = [summarise_run(View(s, s.query())) for s in sessions(runs)]
        m = compare(summaries[:5], summaries[5:]).methods
        for i in range(len(m)):
            if m.full_name(i) in busy and m.gated[i]:
                trials += 1
                moved += abs(float(m.excl.rel[i])) > 0.10
                if m.state_name(i) in counts:
                    counts[m.state_name(i)] += 1
    assert trials == 200 and moved > 60  # the threshold alone would flag a third of them
    margin = 2.5 * (0.05 * 0.95 / trials) ** 0.5
    for word, n in counts.items():
        assert n / trials <= 0.05 + margin, (word, n)


def test_one_run_per_side_gives_the_runs_own_numbers() -> None:
    trace = generate(records=5000, threads=2, seed=4, balanced=True)
    s = Session(trace)
    c = compare([s], [Session(trace)])
    p = c.paths
    assert p is not None
    assert not c.spread_known and np.array_equal(p.incl.base, p.incl.cand)
    # every call counted once: the roots (threads) hold each tree's total, a node's children
    # never exceed it, and the exclusive times add up to the profile's
    q = s.query()
    prof = s.profile(q)
    clock = q.clock
    roots = p.parent < 0
    assert p.incl.base[roots].sum() == sum(
        int(
            s.top_down(replace(q, threads=(t,)))
            .incl[clock][s.top_down(replace(q, threads=(t,))).parent < 0]
            .sum()
        )
        for t in range(len(trace.threads))
        if s.thread_records[t]
    )
    kids = np.bincount(p.parent[~roots], weights=p.incl.base[~roots], minlength=len(p))
    assert (kids <= p.incl.base + 0.5).all()
    assert p.excl.base.sum() == prof.excl[clock].sum()
    # bottom-up roots: each method's exclusive time, as the methods table has it
    b = c.bottom_up
    assert b is not None
    m = c.methods
    by_name = {m.full_name(i) + m.signature[i]: m.excl.base[i] for i in range(len(m))}
    for i in np.flatnonzero(b.parent < 0).tolist():
        key = c.frames.keys[int(b.frame[i])]
        if len(key) == 3 and b.excl.base[i] > 0:
            assert by_name[f"{key[0]}.{key[1]}{key[2]}"] == b.excl.base[i]


MAIN_EVENTS = [
    (1, "enter", "com.a.Main.run", 0, 0),
    (1, "enter", "com.a.Main.work", 10, 10),
    (1, "exit", "com.a.Main.work", 2010, 2010),
    (1, "exit", "com.a.Main.run", 3000, 3000),
    (2, "enter", "com.a.Bg.loop", 0, 0),
    (2, "exit", "com.a.Bg.loop", 500, 500),
]


def test_threads_meet_by_name_and_by_main() -> None:
    a = make_trace(MAIN_EVENTS, names={1: "main", 2: "worker"})
    # the other build's main thread has another name; its worker another id
    b = make_trace(
        [
            (9 if t == 1 else 5, action, method, cpu, wall)
            for t, action, method, cpu, wall in MAIN_EVENTS
        ],
        names={9: "main", 5: "worker"},
    )
    b = replace(b, threads=replace(b.threads, name=("UI-thread", "worker")))
    b = replace(b, header=replace(b.header, pid=9))
    c = compare([Session(a)], [Session(b)])
    assert set(c.threads.name) == {"main", "worker"}
    p = c.paths
    assert p is not None
    assert not states(c, p, "new") and not states(c, p, "gone")
    assert ("main", "com.a.Main.run", "com.a.Main.work") in states(c, p, "noise")


def test_the_selection_applies_to_both_sides() -> None:
    base, cand = planted_runs(runs=2)

    c = compare(sessions(base), sessions(cand), ask=Ask(threads=("RenderThread",)))
    p = c.paths
    assert p is not None
    assert c.threads.name == ("RenderThread",)
    assert {c.frames.name(int(f)) for f in p.frame[p.parent < 0]} == {"RenderThread"}
    assert not method_states(c, "slower")  # the planted methods run on the main thread


def test_inclusive_metric_flags_the_callers_on_the_paths() -> None:
    base, cand = planted_runs(runs=3)
    c = compare(sessions(base), sessions(cand), Thresholds(metric="incl"))
    p = c.paths
    assert p is not None
    slower = states(c, p, "slower")
    planted = (SOMETIMES, ALWAYS, NOISY)
    ends = {tuple(c.path_names(p, i)) for i in range(len(p))}
    ends = {path for path in ends if path[-1] in planted}
    # on inclusive time the callers of the slower methods grew too, and nothing else did:
    # every slower path leads to a method whose time was changed
    assert {path[-1] for path in slower} > {SOMETIMES, ALWAYS}
    assert all(any(e[: len(path)] == path for e in ends) for path in slower)
