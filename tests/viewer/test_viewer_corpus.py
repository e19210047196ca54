"""Every API answer on every readable corpus trace (and an empty one): no errors, valid JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import traceview
from support.corpus import corpus_files
from support.report_data import keyed
from support.tracebuild import make_trace
from traceview.analysis.session import Session
from traceview.exporters.jsonshape import encode
from traceview.model import TraceError
from traceview.viewer import answers, report


def every_answer(s: Session) -> None:
    for value in (answers.trace_answer(s), answers.methods_answer(s)):
        json.loads(encode(value))
    for t in range(len(s.trace.threads)):
        tile = answers.timeline_answer(s, t, 0, 0)
        assert len(tile["rects"]["call"]) == len(tile["rects"]["start"])
        answers.timeline_answer(s, t, 3, 5)
    for clock in s.clocks:
        q = s.query(clock=clock)
        prof = answers.profile_answer(s, q)
        for m in prof["methods"]["method"][:3]:
            answers.relations_answer(s, m, q)
        for kind in ("graph", "topdown", "bottomup"):
            answers.flame_answer(s, kind, q)
    answers.frames_answer(s, 16)
    if len(s.calls):
        answers.call_answer(s, len(s.calls) - 1)
    data = keyed(report.precompute(s, budget=50_000))
    assert data["/api/trace"]["live"] is False


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_corpus_trace(path: Path) -> None:
    try:
        trace = traceview.load(str(path))
    except TraceError:
        pytest.skip("not a readable trace (tested by the readers)")
    trace.validate()
    every_answer(Session(trace))


def test_empty_trace() -> None:
    trace = make_trace([])
    trace.validate()
    every_answer(Session(trace))
