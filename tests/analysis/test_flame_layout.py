"""Flame graph / top-down / bottom-up layouts: nesting, no overlap, totals, dropped frames."""

from __future__ import annotations

import numpy as np
import pytest

from support.tracebuild import make_trace
from traceview.analysis.calls import build_calls
from traceview.analysis.layout.flame import FlameLayout, flame
from traceview.synth import generate


def check_layout(fl: FlameLayout) -> None:
    n = len(fl.method)
    assert all(len(c) == n for c in (fl.depth, fl.parent, fl.x, fl.width, fl.calls))
    assert np.all(fl.parent < np.arange(n))
    roots = fl.parent < 0
    assert int(fl.width[roots].sum()) <= fl.total
    assert np.all(fl.depth[roots] == 0)
    kids = np.flatnonzero(~roots)
    p = fl.parent[kids]
    assert np.all(fl.depth[kids] == fl.depth[p] + 1)
    assert np.all(fl.x[kids] >= fl.x[p])
    assert np.all(fl.x[kids] + fl.width[kids] <= fl.x[p] + fl.width[p])
    for parent in np.unique(fl.parent):  # siblings side by side, never overlapping
        sib = np.flatnonzero(fl.parent == parent)
        order = sib[np.argsort(fl.x[sib], kind="stable")]
        assert np.all(fl.x[order][1:] >= fl.x[order][:-1] + fl.width[order][:-1])
    assert np.all(fl.width >= fl.total / 2000)


@pytest.mark.parametrize("kind", ["graph", "topdown", "bottomup"])
@pytest.mark.parametrize("clock", ["cpu", "wall"])
def test_generated_trace_layouts(kind: str, clock: str) -> None:
    trace = generate(records=20_000, threads=3, seed=4)
    trace.validate()
    calls = build_calls(trace)
    fl = flame(calls, kind, clock)
    check_layout(fl)
    roots_total = sum(
        int(calls.incl(clock, slice(lo, hi))[calls.depth[lo:hi] == 0].sum())
        for lo, hi in calls.thread_ranges
    )
    if kind == "bottomup":  # roots are methods by exclusive time: Σ = Σ of all exclusive
        assert fl.total == int(calls.excl(clock).sum()) == roots_total
    else:
        assert fl.total == roots_total
    assert fl.dropped >= 0


def test_small_tree_exact() -> None:
    trace = make_trace(
        [
            (1, "enter", "a.A.main", 0, 0),
            (1, "enter", "b.B.work", 10, 10),
            (1, "exit", "b.B.work", 40, 40),
            (1, "enter", "a.A.zeta", 40, 40),
            (1, "exit", "a.A.zeta", 50, 50),
            (1, "enter", "b.B.work", 50, 50),
            (1, "exit", "b.B.work", 60, 60),
            (1, "exit", "a.A.main", 100, 100),
        ]
    )
    trace.validate()
    calls = build_calls(trace)
    graph = flame(calls, "graph", "cpu")
    check_layout(graph)
    assert graph.total == 100_000
    # merged: main -> {work (2 calls, 40 µs), zeta (10 µs)}; graph orders siblings by name
    labels = [trace.methods.full_name(int(m)) for m in graph.method]
    zeta = labels.index("a.A.zeta")
    work = labels.index("b.B.work")
    assert graph.x[zeta] == 0 and graph.x[work] == 10_000 and graph.width[work] == 40_000
    assert graph.calls[work] == 2 and graph.self_time[0] == 50_000
    top = flame(calls, "topdown", "cpu")
    work_t = [trace.methods.full_name(int(m)) for m in top.method].index("b.B.work")
    assert top.x[work_t] == 0  # widest first
    bottom = flame(calls, "bottomup", "cpu")
    check_layout(bottom)
    assert bottom.total == 100_000
    root_methods = {trace.methods.full_name(int(m)) for m in bottom.method[bottom.parent < 0]}
    assert root_methods == {"a.A.main", "b.B.work", "a.A.zeta"}


def test_narrow_frames_are_dropped() -> None:
    ev = [(1, "enter", "a.A.main", 0, 0)]
    ev += [(1, "enter", "a.A.tiny", 1, 1), (1, "exit", "a.A.tiny", 1, 1)]
    ev += [(1, "exit", "a.A.main", 10_000, 10_000)]
    trace = make_trace(ev)
    trace.validate()
    fl = flame(build_calls(trace), "topdown", "wall")
    assert len(fl.method) == 1 and fl.dropped == 1


def test_bad_kind() -> None:
    trace = make_trace([(1, "enter", "a.A.m", 0, 0), (1, "exit", "a.A.m", 1, 1)])
    trace.validate()
    with pytest.raises(ValueError):
        flame(build_calls(trace), "sideways")


@pytest.mark.parametrize("clock", ["cpu", "wall"])
def test_bottom_up_from_the_merged_tree_equals_bottom_up_from_calls(clock: str) -> None:
    from traceview.analysis.calltree import bottom_up
    from traceview.analysis.layout.flame import layout

    trace = generate(records=20_000, threads=2, seed=5)
    trace.validate()
    calls = build_calls(trace)
    fast = flame(calls, "bottomup", clock, min_fraction=0)
    direct = layout(bottom_up(calls), "bottomup", clock, 0)

    def rows(f: FlameLayout) -> list[tuple[int, ...]]:
        cols = (f.depth, f.method, f.x, f.width, f.calls, f.self_time)
        return sorted(zip(*(c.tolist() for c in cols), strict=True))

    assert rows(fast) == rows(direct)
