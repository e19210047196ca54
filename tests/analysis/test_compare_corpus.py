"""`analysis.compare` on real traces from ../shared/corpus (skipped when absent): runs of a
real trace with a planted slow-down (every gap jittered ±2 %, one method's exclusive time
×1.5 in the candidates) are compared 3 vs 3, and exactly that method — and only paths ending
in it — comes out slower, on an ART and on a Dalvik recording."""

from __future__ import annotations

import numpy as np
import pytest

import traceview
from support.corpus import corpus_path
from support.plant import reshape
from traceview.analysis import Session
from traceview.analysis.calls import build_calls
from traceview.analysis.compare import compare
from traceview.analysis.significance import STATES
from traceview.model import Trace

TRACES = ["easternhong-methodtrace/test.trace", "zhkl0228-tracereader/test1.trace"]


def busiest(trace: Trace) -> str:
    """The method with the most exclusive CPU time among those whose `class.method` is
    unique (an overload would share the planted factor)."""
    calls = build_calls(trace)
    me = trace.methods
    excl = np.bincount(calls.method, weights=calls.excl("cpu"), minlength=len(me))
    names = [me.full_name(i) for i in range(len(me))]
    order: list[int] = np.argsort(-excl).tolist()
    for m in order:
        if names.count(names[m]) == 1 and me.declared[m]:
            return names[m]
    raise AssertionError("no method to plant")


@pytest.mark.parametrize("relative", TRACES)
def test_a_planted_slow_down_in_a_real_trace_is_found_exactly(relative: str) -> None:
    trace = traceview.load(corpus_path(relative))
    target = busiest(trace)
    base = [reshape(trace, seed=i) for i in range(3)]
    cand = [reshape(trace, seed=10 + i, slower={target: 1.5}) for i in range(3)]
    c = compare([Session(t) for t in base], [Session(t) for t in cand])
    m = c.methods
    words = {w: {m.full_name(i) for i in range(len(m)) if m.state_name(i) == w} for w in STATES}
    assert words["slower"] == {target.replace("/", ".")}
    assert not words["faster"] and not words["new"] and not words["gone"]
    assert {m.full_name(i) for i in c.regressions} == {target.replace("/", ".")}
    p = c.paths
    assert p is not None
    ends = {c.frames.name(int(p.frame[i])) for i in range(len(p)) if p.state_name(i) == "slower"}
    assert ends == {target.replace("/", ".")}
    assert not any(p.state_name(i) in ("faster", "new", "gone") for i in range(len(p)))
    i = next(i for i in range(len(m)) if m.full_name(i) == target.replace("/", "."))
    assert m.excl.rel[i] == pytest.approx(0.5, abs=0.05)
