"""Merged call trees (top-down by path, bottom-up by caller) and the select filters."""

from __future__ import annotations

import numpy as np

from support.tracebuild import make_trace
from traceview.analysis import filters as select
from traceview.analysis.calls import build_calls
from traceview.analysis.calltree import bottom_up, top_down
from traceview.analysis.profile import profile
from traceview.model import Trace


def sample() -> Trace:
    ev = []
    t = 0
    for _ in range(3):  # run -> f -> g, three times; run -> g once
        ev += [(1, "enter", "a.A.run", t, t), (1, "enter", "a.A.f", t + 1, t + 1)]
        ev += [(1, "enter", "a.A.g", t + 2, t + 2), (1, "exit", "a.A.g", t + 4, t + 5)]
        ev += [(1, "exit", "a.A.f", t + 5, t + 6), (1, "exit", "a.A.run", t + 6, t + 8)]
        t += 10
    ev += [(1, "enter", "a.A.g", t, t), (1, "exit", "a.A.g", t + 3, t + 3)]
    ev += [(2, "enter", "a.A.g", 0, 0), (2, "exit", "a.A.g", 1, 1)]
    return make_trace(ev, methods=["a.A.run", "a.A.f", "a.A.g"])


def test_top_down_merges_paths() -> None:
    tree = top_down(build_calls(sample()), [0])
    names = [
        ("  " * d) + str(m) for d, m in zip(tree.depth.tolist(), tree.method.tolist(), strict=True)
    ]
    assert names == ["0", "  1", "    2", "2"]
    assert tree.calls.tolist() == [3, 3, 3, 1]
    assert tree.incl["cpu"].tolist() == [18000, 12000, 6000, 3000]
    assert tree.excl["cpu"].tolist() == [6000, 6000, 6000, 3000]
    assert tree.parent.tolist() == [-1, 0, 1, -1]


def test_bottom_up_attributes_self_time_to_callers() -> None:
    tree = bottom_up(build_calls(sample()))
    rows = list(
        zip(tree.depth.tolist(), tree.method.tolist(), tree.incl["cpu"].tolist(), strict=True)
    )
    # g: 6 µs under f (3 calls) + 3 µs top-level + 1 µs on thread 2 = 10 µs
    assert rows[0] == (0, 2, 10000)
    assert (1, 1, 6000) in rows and (2, 0, 6000) in rows
    assert int(tree.incl["cpu"][tree.depth == 0].sum()) == int(
        profile(build_calls(sample())).excl["cpu"].sum()
    )


def test_select_filters_compose() -> None:
    calls = build_calls(sample())
    one = select.threads(calls, [1])
    one.validate()
    assert len(one) == 1 and one.thread_ranges.tolist() == [[0, 0], [0, 1]]
    late = select.time_range(calls, 25_000, 40_000)
    late.validate()
    # third run and its f overlap; its g ends exactly at 25 µs (excluded); the lone g is in
    assert late.method.tolist() == [0, 1, 2]
    assert late.start("wall").tolist() == [20000, 21000, 30000]
    assert late.parent.tolist() == [-1, 0, -1]
    focused = select.focus(late, [1])
    focused.validate()
    assert focused.method.tolist() == [1] and focused.depth.tolist() == [0]
    assert np.array_equal(select.threads(late, [0]).method, late.method)
