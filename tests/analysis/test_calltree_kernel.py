"""The compiled merge behind `calltree.top_down` (analysis/kernels/merging.py): the rows cut into
pieces anywhere (a piece starting inside a call), time ranges clipped as the pass reads, deep
chains and node stores that grow give the same tree, node for node and in the same order, as
one piece, as the oracle and as the cut table."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Sequence
from typing import Any
from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from support.engine_checks import SETTINGS, traces
from support.oracle import oracle, oracle_top_down
from support.tracebuild import make_trace
from support.tree_paths import tree_paths
from traceview.analysis import filters
from traceview.analysis import workers as _workers
from traceview.analysis.calls import CallTable, build_calls
from traceview.analysis.calltree import CallTree, invert, top_down
from traceview.analysis.ranges import ThreadCut, clipped_spans, cut_thread
from traceview.model import EventTable, Trace
from traceview.synth import generate


def same(a: CallTree, b: CallTree) -> None:
    """Equal trees, column by column."""
    assert a.clocks == b.clocks
    for col in ("parent", "method", "depth", "calls"):
        assert getattr(a, col).tolist() == getattr(b, col).tolist(), col
    for c in a.clocks:
        assert a.incl[c].tolist() == b.incl[c].tolist()
        assert a.excl[c].tolist() == b.excl[c].tolist()


def pieces(
    calls: CallTable,
    threads: list[int] | None,
    workers: int,
    cuts: Sequence[ThreadCut] | None = None,
) -> CallTree:
    """`top_down` on `workers` pieces however few the rows."""
    with mock.patch.object(_workers, "PIECE_ROWS", 1):
        return top_down(calls, threads, cuts=cuts, workers=workers)


def reference(
    calls: CallTable, rows: list[int], incl: dict[str, list[int]]
) -> dict[tuple[int, ...], list[Any]]:
    """Path -> [calls, incl, excl] summed call by call from `incl` (excl: minus children's)."""
    out: dict[tuple[int, ...], list[Any]] = {}
    path: dict[int, tuple[int, ...]] = {}
    parent = calls.parent.tolist()
    for i in rows:
        p = parent[i]
        path[i] = (*path[p], int(calls.method[i])) if p >= 0 else (int(calls.method[i]),)
        node = out.setdefault(path[i], [0, defaultdict(int), defaultdict(int)])
        node[0] += 1
        for c in calls.clocks:
            node[1][c] += incl[c][i]
            node[2][c] += incl[c][i]
            if p >= 0:
                out[path[p]][2][c] -= incl[c][i]
    return {k: [n, dict(i), dict(e)] for k, (n, i, e) in out.items()}


@settings(SETTINGS, max_examples=60)
@given(traces(messy=True), st.integers(1, 5), st.booleans())
def test_pieces_equal_one_piece_and_the_oracle(trace: Trace, workers: int, some: bool) -> None:
    threads = list(range(0, len(trace.threads), 2)) if some else None
    calls = build_calls(trace)
    one = top_down(calls, threads, workers=1)
    same(pieces(calls, threads, workers), one)
    want = oracle_top_down(oracle(trace), threads)
    assert tree_paths(one) == {k: [n, dict(i), dict(e)] for k, (n, i, e) in want.items()}
    same(invert(pieces(calls, threads, workers), 3), invert(one, 3))


def test_deep_chain_and_many_nodes() -> None:
    """A 3000-deep chain of distinct methods under one root, then 2000 leaves under the root:
    the stack of open calls and the node store grow (past 1024 nodes) inside a piece."""
    ev = [(1, "enter", "a.R.run", 0, 0)]
    t = 1
    for d in range(3000):
        ev.append((1, "enter", f"a.C.m{d}", t, t))
        t += 1
    for d in reversed(range(3000)):
        ev.append((1, "exit", f"a.C.m{d}", t, t + 1))
        t += 2
    for leaf in range(2000):
        ev += [(1, "enter", f"a.L.f{leaf}", t, t), (1, "exit", f"a.L.f{leaf}", t + 1, t + 2)]
        t += 3
    ev.append((1, "exit", "a.R.run", t, t + 5))
    calls = build_calls(make_trace(ev))
    one = top_down(calls, workers=1)
    assert len(one) == 1 + 3000 + 2000
    assert int(one.depth.max()) == 3000
    assert one.calls.tolist() == [1] * len(one)
    for workers in (2, 3, 7):
        same(pieces(calls, None, workers), one)
    rows = list(range(len(calls)))
    incl = {c: calls.incl(c).tolist() for c in calls.clocks}
    assert tree_paths(one) == reference(calls, rows, incl)


def test_a_trace_without_clocks_merges_counts() -> None:
    """Events without a time column: the trees count calls (siblings by decreasing count)."""
    trace = generate(records=3000, threads=3, seed=4)
    ev = trace.events
    bare = dataclasses.replace(
        trace, events=EventTable(ev.thread, ev.method, ev.action, cpu=None, wall=None)
    )
    tree = pieces(build_calls(bare), None, 2)
    assert tree.clocks == () and tree.incl == {} and tree.excl == {}
    timed = top_down(build_calls(trace))
    counts = {p: v[0] for p, v in tree_paths(timed).items()}
    paths = tree_paths(dataclasses.replace(tree, clocks=("n",), incl={"n": tree.calls}))
    assert {p: v[0] for p, v in paths.items()} == counts
    assert invert(tree).calls.sum() == invert(timed).calls.sum()


@settings(SETTINGS, max_examples=80)
@given(traces(messy=True), st.integers(1, 4), st.booleans(), st.data())
def test_a_range_equals_the_cut_table(
    trace: Trace, workers: int, some: bool, data: st.DataObject
) -> None:
    """With a time range's cuts, the pass counts the calls overlapping the range with their
    clipped times, a kept call under its nearest kept ancestor: the tree of the table cut to
    those calls (`filters.subset`) with the clipped times (`ranges.clipped_spans`), summed
    call by call."""
    calls = build_calls(trace)
    threads = list(range(0, len(trace.threads), 2)) if some else None
    clock = calls.clocks[-1]
    times = trace.events.time(clock)
    lo = data.draw(st.integers(int(times.min()) - 2, int(times.max()) + 2))
    hi = data.draw(st.integers(lo, int(times.max()) + 3))
    rows = range(len(trace.threads)) if threads is None else threads
    cuts = [cut_thread(calls, t, calls.clocks, clock, (lo, hi)) for t in rows]
    got = pieces(calls, None, workers, cuts=cuts)
    keep = np.zeros(len(calls), dtype=bool)
    incl = {c: np.zeros(len(calls), dtype=np.int64) for c in calls.clocks}
    for t in rows:
        a, b = (int(x) for x in calls.thread_ranges[t])
        if b > a:
            s, e, k = clipped_spans(calls, t, calls.clocks, clock, (lo, hi))
            keep[a:b] = k
            for c in calls.clocks:
                incl[c][a:b] = e[c] - s[c]
    cut = filters.subset(calls, keep)
    want = reference(cut, list(range(len(cut))), {c: v[keep].tolist() for c, v in incl.items()})
    assert tree_paths(got) == want
