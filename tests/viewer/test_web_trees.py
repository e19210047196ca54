"""The tree and flame answers (viewer/trees.py) on a real trace: nothing left out unsaid (every
level adds up to its parent with its "N more" row), node subtrees on demand, parents always
inside the answer (also when deep levels are cut), and flame windows with frames >= 1 px."""

from __future__ import annotations

from collections import defaultdict
from functools import cache
from typing import Any

import pytest

import traceview
from support.corpus import corpus_path
from traceview.analysis.session import Session
from traceview.viewer import trees

EASTERN = "easternhong-methodtrace/test.trace"


@cache
def _session(path: str) -> Session:
    return Session(traceview.load(path))


@pytest.fixture
def eastern() -> Session:
    return _session(str(corpus_path(EASTERN)))


def _child_sums(nodes: dict[str, Any]) -> dict[int, float]:
    out: dict[int, float] = defaultdict(float)
    for p, w in zip(nodes["parent"], nodes["width"], strict=True):
        out[p] += w
    return out


def test_top_down_adds_up_with_more_rows(eastern: Session) -> None:
    q = eastern.query(clock="cpu")
    a = trees.tree_answer(eastern, "topdown", q)
    n = a["nodes"]
    assert a["size"] == 16_351  # every node of the tree is there to be had (was 1,467 shown)
    ids = set(n["id"])
    assert all(p < 0 or p in ids for p in n["parent"])
    kids = _child_sums(n)
    for i, w, s, mw in zip(n["id"], n["width"], n["self"], n["more_width"], strict=True):
        assert w == pytest.approx(s + kids[i] + mw, abs=0.01)  # self + children + "N more"
    assert kids[-1] + a["roots_more_width"] == pytest.approx(a["total"], abs=0.01)
    assert a["total"] == pytest.approx(264_648.0, abs=1)


def test_a_node_with_children_says_so(eastern: Session) -> None:
    """ColorStateList.inflate (0.74 ms) has callees: loaded, or counted in `more`."""
    q = eastern.query(clock="cpu")
    a = trees.tree_answer(eastern, "topdown", q, limit=200)
    labels = eastern.trace.methods
    n = a["nodes"]
    hits = [k for k, m in enumerate(n["method"]) if "ColorStateList.inflate" in labels.full_name(m)]
    for k in hits:
        loaded = sum(1 for p in n["parent"] if p == n["id"][k])
        assert loaded + n["more"][k] > 0
    # and its subtree comes on demand, parents first
    some = n["id"][max(range(len(n["id"])), key=lambda k: n["more"][k])]
    b = trees.tree_answer(eastern, "topdown", q, node=some)
    assert b["nodes"]["id"][0] == some and b["nodes"]["more"][0] == 0
    c = trees.tree_answer(eastern, "topdown", q, node=some, children=True)
    assert all(p == some for p in c["nodes"]["parent"][1:])


def test_bottom_up_parents_inside_the_answer(eastern: Session) -> None:
    q = eastern.query(clock="cpu")
    a = trees.tree_answer(eastern, "bottomup", q)
    n = a["nodes"]
    ids = set(n["id"])
    assert all(p < 0 or p in ids for p in n["parent"])
    kids = _child_sums(n)
    assert kids[-1] + a["roots_more_width"] == pytest.approx(a["total"], abs=0.01)


def test_cut_flame_levels_keep_their_parents(eastern: Session) -> None:
    """Past 30 000 frames the deepest levels go; the parents left point inside the list (they
    pointed past it before: 18,676 of 22,187 on this trace's bottom-up)."""
    q = eastern.query(clock="cpu")
    f = trees.flame_answer(eastern, "bottomup", q, px=100_000)
    n = f["nodes"]
    assert f["truncated"] and len(n["method"]) <= trees.MAX_FLAME_NODES
    for i, (p, d) in enumerate(zip(n["parent"], n["depth"], strict=True)):
        assert p < i and (p < 0) == (d == 0)
        if p >= 0:
            assert n["depth"][p] == d - 1
            assert n["x"][p] <= n["x"][i] + 1e-3


def test_flame_window_frames_at_least_a_pixel(eastern: Session) -> None:
    q = eastern.query(clock="cpu")
    whole = trees.flame_answer(eastern, "graph", q)
    n = whole["nodes"]
    k = min(range(len(n["x"])), key=lambda i: abs(n["width"][i] - whole["total"] / 40))
    x0, x1 = n["x"][k], n["x"][k] + n["width"][k]
    zoomed = trees.flame_answer(eastern, "graph", q, x0, x1, 1600)
    z = zoomed["nodes"]
    assert len(z["x"]) > 0 and zoomed["window"] == [pytest.approx(x0), pytest.approx(x1)]
    for x, w in zip(z["x"], z["width"], strict=True):
        assert w * 1600 >= (x1 - x0) - 1e-6 and x < x1 and x + w > x0
    # frames too narrow for the whole graph show once zoomed in
    deeper = sum(1 for x, w in zip(z["x"], z["width"], strict=True) if w < whole["total"] / 2000)
    assert deeper > 0


def test_find_walks_the_whole_tree_in_pre_order(eastern: Session) -> None:
    q = eastern.query(clock="cpu")
    tree = eastern.top_down(q)
    method = int(tree.method[len(tree) - 1])  # the last node's method, deep in the tree
    hits = [i for i in range(len(tree)) if int(tree.method[i]) == method]
    a = trees.find_answer(eastern, "topdown", q, (method,), -1, 1)
    assert a["found"] == hits[0]
    n = a["nodes"]
    assert n["id"][-1] == hits[0] and n["parent"][0] == -1  # its path from the root
    assert all(p == i for p, i in zip(n["parent"][1:], n["id"][:-1], strict=True))
    back = trees.find_answer(eastern, "topdown", q, (method,), hits[0], -1)
    assert back["found"] == hits[-1]  # before the first: wraps to the last
    none = trees.find_answer(eastern, "topdown", q, (), -1, 1)
    assert none["found"] == -1 and none["nodes"]["id"] == []
