"""Exact time ranges in every view (the defect: a range made the flame graph, top-down and
bottom-up wrong). Random traces x random ranges x random thread sets, through `Session`:

* on the range's clock, the top-down and bottom-up trees equal the oracle's trees built from
  the calls overlapping the range, each with its time clipped to the range;
* on every clock, every view's totals agree: Σ profile exclusive + toplevel = Σ thread totals
  = Σ top-down roots' inclusive + toplevel; per method, the profile's exclusive equals the
  top-down tree's exclusive summed by method and the bottom-up roots; the flame graph's total
  equals the roots' inclusive.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import numpy.typing as npt
from hypothesis import given, settings
from hypothesis import strategies as st

from support.engine_checks import SETTINGS, traces
from support.oracle import clip_trace, oracle, oracle_bottom_up, oracle_top_down
from support.tracebuild import make_trace
from support.tree_paths import tree_paths
from traceview.analysis import Session, TimeRange
from traceview.model import Trace


@st.composite
def selections(draw: st.DrawFn) -> tuple[Trace, int, int, list[int] | None]:
    """A trace, a range (lo, hi) on its range clock (ends often on record times) and a thread
    selection (None = all)."""
    trace = draw(traces(messy=True))
    col = trace.events.time("wall" if "wall" in trace.clocks else "cpu").tolist()
    near = st.sampled_from(col).flatmap(lambda t: st.integers(t - 1500, t + 1500))
    ends = st.one_of(st.sampled_from(col), near)
    lo, hi = sorted((draw(ends), draw(ends)))
    n = len(trace.threads)
    rows = draw(st.one_of(st.none(), st.lists(st.integers(0, n - 1), min_size=1, unique=True)))
    return trace, lo, hi, rows


def summed(method: npt.NDArray[np.integer], values: npt.NDArray[np.int64], n: int) -> list[int]:
    out = np.zeros(n, dtype=np.int64)
    np.add.at(out, method.astype(np.int64), values)
    return out.tolist()


def check_views_agree(s: Session, threads: list[int] | None, tr: TimeRange | None) -> None:
    n = len(s.trace.methods)
    for clock in s.clocks:
        q = s.query(threads=threads, clock=clock, time_range=tr)
        prof = s.profile(q)
        prof.validate()
        top, bottom = s.top_down(q), s.bottom_up(q)
        total = prof.total(clock)
        roots = top.parent < 0
        assert int(prof.excl[clock].sum()) + prof.toplevel[clock] == total
        assert int(top.incl[clock][roots].sum()) + prof.toplevel[clock] == total
        assert summed(top.method, top.excl[clock], n) == prof.excl[clock].tolist()
        b = bottom.parent < 0
        assert summed(bottom.method[b], bottom.excl[clock][b], n) == prof.excl[clock].tolist()
        assert (top.excl[clock] >= 0).all() and (top.incl[clock] >= top.excl[clock]).all()
        assert s.flame(q, "graph").total == int(top.incl[clock][roots].sum())


@settings(SETTINGS, max_examples=150)
@given(selections())
def test_range_views_equal_the_oracle_and_each_other(
    case: tuple[Trace, int, int, list[int] | None],
) -> None:
    trace, lo, hi, threads = case
    trace.validate()
    s = Session(trace)
    tr = TimeRange(lo, hi, s.timeline_clock)
    clipped, keep = clip_trace(trace, tr.clock, lo, hi)
    o = oracle(clipped)
    q = s.query(threads=threads, clock=tr.clock, time_range=tr)
    c = tr.clock
    got = tree_paths(s.top_down(q))
    want = oracle_top_down(o, threads, keep)
    assert {k: [v[0], v[1][c], v[2][c]] for k, v in got.items()} == {
        k: [n, i[c], e[c]] for k, (n, i, e) in want.items()
    }
    got_b = tree_paths(s.bottom_up(q))
    want_b = oracle_bottom_up(o, threads, 64, keep)
    assert {k: [v[0], v[2][c]] for k, v in got_b.items()} == {
        k: [n, x[c]] for k, (n, x) in want_b.items()
    }
    check_views_agree(s, threads, tr)
    check_views_agree(s, threads, None)


def test_a_range_moves_no_childs_time_into_its_parent() -> None:
    """`loop` runs 0-100 ms, `work` 10-90 ms inside it; the range 40-60 ms holds only `work`:
    loop's self time in the range is 0 in every view, work's 20 ms (before: the flame graph and
    the trees gave `loop` the children's time outside the range as self time)."""
    ev = [
        (1, "enter", "a.Looper.loop", 0, 0),
        (1, "enter", "a.A.work", 10_000, 10_000),
        (1, "exit", "a.A.work", 90_000, 90_000),
        (1, "exit", "a.Looper.loop", 100_000, 100_000),
    ]
    trace = make_trace(ev)
    s = Session(trace)
    q = s.query(clock="wall", time_range=s.time_range(40_000_000, 60_000_000))
    name = trace.methods.name
    top = s.top_down(q)
    assert {name[int(m)]: int(e) for m, e in zip(top.method, top.excl["wall"], strict=True)} == {
        "loop": 0,
        "work": 20_000_000,
    }
    bottom = s.bottom_up(q)
    roots = np.flatnonzero(bottom.parent < 0)
    assert {name[int(bottom.method[i])]: int(bottom.excl["wall"][i]) for i in roots} == {
        "loop": 0,
        "work": 20_000_000,
    }
    prof = s.profile(q)
    loop = name.index("loop")
    assert int(prof.excl["wall"][loop]) == 0 and int(prof.incl["wall"][loop]) == 20_000_000
    per: dict[str, int] = defaultdict(int)
    fl = s.flame(q, "graph")
    for m, w in zip(fl.method.tolist(), fl.self_time.tolist(), strict=True):
        per[name[m]] += w
    assert per == {"loop": 0, "work": 20_000_000}
