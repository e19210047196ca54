"""The differential flame layout (analysis/layout/diffflame.py): widths are one side's medians,
children stay inside their parent even where medians do not add up, colours follow the
planted changes, and nodes of one side only are marked and drawn only on their side."""

from __future__ import annotations

import numpy as np
import pytest

from support.plant import ALWAYS, SOMETIMES, planted_runs
from support.tracebuild import make_trace
from traceview.analysis import Session
from traceview.analysis.compare import Comparison, compare
from traceview.analysis.layout.diffflame import BASE_ONLY, BOTH, CAND_ONLY, DiffFlame
from traceview.analysis.significance import STATES
from traceview.model import Trace


def inside(f: DiffFlame) -> None:
    """Every node lies within its parent, siblings do not overlap, roots tile the total."""
    kids = f.parent >= 0
    p = f.parent[kids]
    assert (f.x[kids] >= f.x[p] - 1e-6).all()
    assert (f.x[kids] + f.width[kids] <= f.x[p] + f.width[p] + 1e-6).all()
    assert f.width[f.parent < 0].sum() == pytest.approx(f.total)
    order = np.lexsort((f.x, f.parent))
    same = f.parent[order][1:] == f.parent[order][:-1]
    ends = (f.x + f.width)[order][:-1]
    assert (f.x[order][1:][same] >= ends[same] - 1e-6).all()
    assert (np.diff(f.row) != 0).all() and (f.parent < np.arange(len(f))).all()


@pytest.fixture(scope="module")
def planted() -> Comparison:
    base, cand = planted_runs(moved=True)
    return compare([Session(t) for t in base], [Session(t) for t in cand])


def test_widths_are_the_sides_medians(planted: Comparison) -> None:
    p = planted.paths
    assert p is not None
    for side, col in (("candidate", p.incl.cand), ("baseline", p.incl.base)):
        f = planted.diff_flame(side)
        inside(f)
        roots = f.parent < 0
        assert f.total == pytest.approx(col[p.parent < 0].sum())
        assert np.allclose(f.width[roots], col[f.row[roots]])
        assert f.side == side and f.dropped == int((col <= 0).sum())


def test_colours_follow_the_planted_changes(planted: Comparison) -> None:
    p = planted.paths
    assert p is not None
    f = planted.diff_flame()
    name = [planted.frames.name(int(p.frame[r])) for r in f.row]
    slower = STATES.index("slower")
    for method, factor in ((SOMETIMES, 1.3), (ALWAYS, 2.0)):
        hot = [i for i in range(len(f)) if name[i] == method and f.state[i] == slower]
        assert hot
        for i in hot:  # min(1, |log2(ratio)|) of the exclusive medians
            assert f.intensity[i] == pytest.approx(min(1.0, np.log2(factor)), abs=0.06)
    noise = f.state == STATES.index("noise")
    assert (f.intensity[noise] == 0).all() and noise.sum() > len(f) / 2


def test_nodes_of_one_side_are_marked_and_drawn_on_their_side(planted: Comparison) -> None:
    p = planted.paths
    assert p is not None
    cand, base = planted.diff_flame("candidate"), planted.diff_flame("baseline")
    assert set(cand.only.tolist()) == {BOTH, CAND_ONLY}
    assert set(base.only.tolist()) == {BOTH, BASE_ONLY}
    gone = set(np.flatnonzero(~p.on_cand).tolist())
    new = set(np.flatnonzero(~p.on_base).tolist())
    assert gone and new
    assert set(base.row[base.only == BASE_ONLY].tolist()) == gone
    assert set(cand.row[cand.only == CAND_ONLY].tolist()) == new
    assert (cand.intensity[cand.only == CAND_ONLY] == 1).all()


def runs_of(children: list[tuple[int, int]]) -> list[Trace]:
    """One run per (a, b): `run` calling `a` for `a` µs then `b` for `b` µs (0: not called)."""
    out = []
    for a, b in children:
        ev = [(1, "enter", "com.x.P.run", 0, 0)]
        t = 1
        for name, d in (("com.x.P.a", a), ("com.x.P.b", b)):
            if d:
                ev += [(1, "enter", name, t, t), (1, "exit", name, t + d, t + d)]
                t += d
        ev.append((1, "exit", "com.x.P.run", t + 1, t + 1))
        out.append(make_trace(ev, names={1: "main"}))
    return out


def test_children_whose_medians_exceed_the_parent_are_scaled_to_fit() -> None:
    # run 1 calls a for 1 ms, run 2 b for 1 ms, run 3 both: the medians of a and b are 1 ms
    # each (Σ 2 ms) under a parent whose median is about 1 ms
    side = runs_of([(1000, 0), (0, 1000), (1000, 1000)])
    c = compare([Session(t) for t in side], [Session(t) for t in side])
    f = c.diff_flame()
    inside(f)
    p = c.paths
    assert p is not None
    kids = f.parent >= 0
    assert (p.incl.cand[f.row[kids]] > f.width[kids]).any()  # scaled, not the medians
