"""Generated traces (hypothesis strategies) and the checks that compare the engine with the
slow reference in support/oracle.py, shared by the engine's property tests."""

from __future__ import annotations

import itertools
import random

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from support.oracle import Oracle, OracleProfile, oracle, oracle_profile
from support.tracebuild import make_trace
from traceview.analysis.calls import CallTable, build_calls
from traceview.analysis.profile import Profile, profile, thread_profiles
from traceview.model import Clock, Trace

METHODS = ["a.A.f", "a.A.g", "b.B.h", "b.B.k", "c.C.never"]  # the last one is never called
USED = 4
Op = tuple[str, int]  # (action, method index)

method = st.integers(0, USED - 1)


@st.composite
def tree(draw: st.DrawFn, depth: int = 3, unroll: bool = False) -> list[Op]:
    """One balanced call with random children (methods repeat, so recursion happens)."""
    m = draw(method)
    out: list[Op] = [("enter", m)]
    if depth:
        for _ in range(draw(st.integers(0, 3))):
            out += draw(tree(depth - 1, unroll))
    closing = "unroll" if unroll and draw(st.integers(0, 4)) == 0 else "exit"
    return [*out, (closing, m)]


@st.composite
def chain(draw: st.DrawFn, unroll: bool = False) -> list[Op]:
    """Deep recursion: one method (direct) or a cycle of 2-3 methods (mutual)."""
    cycle = draw(st.lists(method, min_size=1, max_size=3))
    n = draw(st.integers(1, 30))
    ms = [cycle[i % len(cycle)] for i in range(n)]
    exits = ["unroll" if unroll and draw(st.booleans()) else "exit" for _ in ms]
    return [("enter", m) for m in ms] + [(a, m) for a, m in zip(exits, reversed(ms), strict=True)]


raw = st.lists(st.tuples(st.sampled_from(["enter", "exit", "exit", "unroll"]), method), max_size=6)


@st.composite
def forced(draw: st.DrawFn) -> list[Op]:
    """Enters, then an exit (or unroll) naming a method below the top: a mismatched exit."""
    ms = draw(st.lists(method, min_size=2, max_size=4))
    closing = draw(st.sampled_from(["exit", "unroll"]))
    return [("enter", m) for m in ms] + [(closing, ms[draw(st.integers(0, len(ms) - 2))])]


unwind = st.lists(st.tuples(st.just("exit"), method), min_size=1, max_size=4)


@st.composite
def thread_ops(draw: st.DrawFn, messy: bool) -> list[Op]:
    """One thread's records. Messy threads may start with exits (tracing began inside), mix
    in raw records (mismatched and stray exits, unrolls) and end with calls left open."""
    blocks = [tree(3, messy), chain(messy)]
    if messy:
        blocks += [raw, unwind, forced(), st.lists(st.tuples(st.just("enter"), method), max_size=3)]
    out: list[Op] = draw(unwind) if messy and draw(st.booleans()) else []
    for block in draw(st.lists(st.one_of(*blocks), min_size=1, max_size=4)):
        out += block
    return out[:60] or [("exit", draw(method))]  # empty traces: test_oracle_cases.py


@st.composite
def traces(
    draw: st.DrawFn,
    messy: bool = True,
    clock: Clock | None = None,
    threads: tuple[int, int] = (1, 4),
) -> Trace:
    """Threads interleaved at random (sometimes one after the other); per-thread times
    non-decreasing with many ties, sometimes far from zero (32-bit µs, epoch ns)."""
    n_threads = draw(st.integers(*threads))
    tids = draw(
        st.lists(st.integers(1, 40000), min_size=n_threads, max_size=n_threads, unique=True)
    )
    scripts = [draw(thread_ops(messy)) for _ in range(min(n_threads, 4))]
    clocks: list[Clock] = ["dual", "thread-cpu", "wall"]
    clk = clock if clock is not None else draw(st.sampled_from(clocks))
    rnd = random.Random(draw(st.integers(0, 2**32)))  # interleaving and times: cheap
    per_thread = scripts + [rnd.choice(scripts) for _ in range(n_threads - len(scripts))]
    order = [t for t, ops in enumerate(per_thread) for _ in ops]
    if rnd.random() < 0.8:
        rnd.shuffle(order)
    cpu = [rnd.choice([0, 2**32 - 3000]) + rnd.randrange(100) for _ in tids]
    wall = [rnd.choice([0, 1_763_700_000_000_000]) + rnd.randrange(100) for _ in tids]
    nxt = [0] * n_threads
    events = []
    for t in order:
        action, m = per_thread[t][nxt[t]]
        nxt[t] += 1
        dc, dw = rnd.choice([0, 0, 1, 2, 3, 50]), rnd.choice([0, 0, 1, 7])
        cpu[t] += dc
        wall[t] += dc + dw
        events.append(
            (
                tids[t],
                action,
                METHODS[m],
                cpu[t] if clk != "wall" else None,
                wall[t] if clk != "thread-cpu" else None,
            )
        )
    return make_trace(events, clock=clk, methods=METHODS)


def subtree_end(o: Oracle) -> list[int]:
    """Row after the last descendant of every call."""
    out = [0] * len(o.calls)
    for call in reversed(o.calls):
        out[call.row] = out[call.children[-1].row] if call.children else call.row + 1
    return out


def check_calls(calls: CallTable, o: Oracle) -> None:
    """Every column, every derived time, the thread ranges and the repair counts."""
    calls.validate()
    got = list(
        zip(
            calls.thread.tolist(),
            calls.method.tolist(),
            calls.depth.tolist(),
            calls.parent.tolist(),
            calls.subtree_end.tolist(),
            calls.enter_event.tolist(),
            calls.exit_event.tolist(),
            calls.flags.tolist(),
            strict=True,
        )
    )
    want = list(
        zip(
            [c.thread for c in o.calls],
            [c.method for c in o.calls],
            [c.depth for c in o.calls],
            [c.parent_row for c in o.calls],
            subtree_end(o),
            [c.enter_event for c in o.calls],
            [c.exit_event for c in o.calls],
            [c.flags for c in o.calls],
            strict=True,
        )
    )
    assert got == want
    assert calls.thread_ranges.tolist() == [list(r) for r in o.thread_rows]
    assert calls.flags.dtype == np.uint8 and calls.method.dtype in (np.int16, np.int32)
    assert calls.depth.dtype in (np.int16, np.int32)
    assert calls.parent.dtype == calls.subtree_end.dtype == np.int32  # small tables
    for clock in ("cpu", "wall"):
        if clock not in o.clocks:
            assert getattr(calls, f"incl_{clock}") is None
            assert getattr(calls, f"excl_{clock}") is None
            continue
        assert calls.incl(clock).tolist() == [c.incl[clock] for c in o.calls]
        assert calls.excl(clock).tolist() == [c.excl[clock] for c in o.calls]
        assert getattr(calls, f"incl_{clock}").tolist() == [c.incl[clock] for c in o.calls]
        assert getattr(calls, f"excl_{clock}").tolist() == [c.excl[clock] for c in o.calls]
        col = calls.trace.events.time(clock)
        assert calls.start(clock).tolist() == [int(col[c.enter_event]) for c in o.calls]
        assert calls.end(clock).tolist() == [int(col[c.exit_event]) for c in o.calls]
        for t, (lo, hi) in enumerate(o.thread_rows):
            assert calls.thread_total(t, clock) == o.thread_total[clock][t]
            rows = [i for i in range(len(col)) if int(calls.trace.events.thread[i]) == t]
            span = (int(col[rows[0]]), int(col[rows[-1]])) if rows else (0, 0)
            assert calls.thread_span(t, clock) == span
            assert calls.excl(clock, slice(lo, hi)).tolist() == [
                c.excl[clock] for c in o.calls[lo:hi]
            ]
    assert {d.code: d.count for d in calls.diagnostics} == o.repairs


def dense(values: dict[int, int], n: int) -> list[int]:
    return [values.get(m, 0) for m in range(n)]


def edge_dict(p: Profile) -> dict[tuple[int, int, bool, bool], tuple[int, dict[str, int]]]:
    e = p.edges
    out: dict[tuple[int, int, bool, bool], tuple[int, dict[str, int]]] = {}
    for i in range(len(e)):
        key = (
            int(e.parent[i]),
            int(e.child[i]),
            bool(e.parent_recursive[i]),
            bool(e.child_recursive[i]),
        )
        assert key not in out, f"edge {key} appears twice"
        out[key] = (int(e.calls[i]), {c: int(v[i]) for c, v in e.incl.items()})
    return out


def check_profile(
    p: Profile, want: OracleProfile, clocks: tuple[str, ...], relatives: bool = True
) -> None:
    """Both clocks, n and r, exclusive/self/inclusive, edges, relatives, per-thread totals."""
    p.validate()
    n = len(p.trace.methods)
    assert p.clocks == clocks
    assert p.calls.tolist() == dense(want.calls, n)
    assert p.recursive_calls.tolist() == dense(want.recursive_calls, n)
    for c in clocks:
        assert p.incl[c].tolist() == dense(want.incl[c], n), c
        assert p.excl[c].tolist() == dense(want.excl[c], n), c
        assert p.top_excl[c].tolist() == dense(want.top_excl[c], n), c
        assert p.thread_total[c].tolist() == want.thread_total[c]
        assert p.toplevel[c] == want.toplevel[c]
        assert p.total(c) == sum(want.thread_total[c])
    assert p.thread_calls.tolist() == want.thread_calls
    off = p.off_cpu()
    if "cpu" in clocks and "wall" in clocks:
        assert off is not None
        wall, cpu = (dense(want.incl[c], n) for c in ("wall", "cpu"))
        # off-CPU is never negative: CPU can exceed wall by a clock tick
        assert off.tolist() == [max(0, a - b) for a, b in zip(wall, cpu, strict=True)]
    else:
        assert off is None
    assert edge_dict(p) == {
        k: (calls, {c: inc[c] for c in clocks}) for k, (calls, inc) in want.edges.items()
    }
    pref = p.preferred_clock
    rels = want.relatives() if relatives else {}
    extra = {(0, True, False), (n - 1, False, True)} if relatives and n else set()
    for m, parents, rec in rels.keys() | extra:
        rel = p.parents(m, rec) if parents else p.children(m, rec)
        got = {
            int(rel.method[i]): (int(rel.calls[i]), *(int(rel.incl[c][i]) for c in clocks))
            for i in range(len(rel))
        }
        assert got == rels.get((m, parents, rec), {})
        assert len(got) == len(rel)
        if pref in rel.incl:
            assert bool(np.all(np.diff(rel.incl[pref]) <= 0)), "sorted by inclusive"
    used = p.used().tolist()
    assert sorted(used) == [m for m in range(n) if want.calls.get(m) or want.recursive_calls.get(m)]
    if clocks:
        key = p.incl[pref]
        assert all((-key[a], a) <= (-key[b], b) for a, b in itertools.pairwise(used))


def check_invariants(calls: CallTable, o: Oracle) -> None:
    """Σ exclusive + toplevel = thread total; incl ≥ excl ≥ 0; children inside the parent;
    the subtree slice of a call is exactly its descendants."""
    for clock in o.clocks:
        incl, excl = calls.incl(clock), calls.excl(clock)
        assert bool(np.all(incl >= excl)) and bool(np.all(excl >= 0))
        for t, (lo, hi) in enumerate(o.thread_rows):
            top = calls.thread_total(t, clock) - int(incl[lo:hi][calls.depth[lo:hi] == 0].sum())
            assert top >= 0
            assert int(excl[lo:hi].sum()) + top == calls.thread_total(t, clock)
        has = calls.parent >= 0
        assert bool(np.all(incl[has] <= incl[calls.parent[has]]))
    for call in o.calls:
        descendants, todo = set(), list(call.children)
        while todo:
            d = todo.pop()
            descendants.add(d.row)
            todo += d.children
        assert set(range(call.row + 1, int(calls.subtree_end[call.row]))) == descendants


def check_all(trace: Trace) -> None:
    trace.validate()
    o = oracle(trace)
    calls = build_calls(trace)
    check_calls(calls, o)
    check_invariants(calls, o)
    clocks = trace.clocks
    check_profile(profile(calls), oracle_profile(o), clocks)
    per_thread = thread_profiles(calls)
    assert len(per_thread) == len(trace.threads)
    for t, p in enumerate(per_thread):
        check_profile(p, oracle_profile(o, [t]), clocks, relatives=len(per_thread) <= 8)
    some = list(range(0, len(trace.threads), 2))[::-1]  # a subset, in reverse order
    check_profile(profile(calls, threads=some), oracle_profile(o, some), clocks)
    for c in clocks:
        one = profile(calls, clock=c)
        o1 = oracle_profile(o)
        o1.incl, o1.excl, o1.top_excl = ({c: d[c]} for d in (o1.incl, o1.excl, o1.top_excl))
        o1.thread_total, o1.toplevel = {c: o1.thread_total[c]}, {c: o1.toplevel[c]}
        o1.edges = {k: (n, {c: inc[c]}) for k, (n, inc) in o1.edges.items()}
        check_profile(one, o1, (c,))


SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
