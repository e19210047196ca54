"""A trace without threads (issue 18: a damaged file whose version byte says 4 reads as no
threads and no records; 151 of 2,364 mutants) answers every view empty: `Session.frames`
raised IndexError."""

from __future__ import annotations

import traceview
from support.corpus import corpus_path
from support.tracebuild import make_trace
from traceview.analysis import Session
from traceview.analysis.layout.flame import KINDS


def views_are_empty(trace: traceview.Trace) -> None:
    s = Session(trace)
    q = s.query()
    frames = s.frames(16_000_000)
    assert frames.frames == 0 and len(frames.rows) == 0
    assert int(s.profile(q).calls.sum()) == 0
    assert len(s.top_down(q)) == 0
    for kind in KINDS:
        assert len(s.flame(q, kind).method) == 0


def test_empty_trace() -> None:
    views_are_empty(make_trace([]))


def test_version_byte_four() -> None:
    data = bytearray(corpus_path("aosp-perflib/basic-api10.trace").read_bytes())
    data[data.index(b"SLOW") + 4] = 4
    trace = traceview.load(bytes(data))
    assert len(trace.threads) == 0
    views_are_empty(trace)
