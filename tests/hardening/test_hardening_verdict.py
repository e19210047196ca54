"""Data damaged beyond use (a text-mode transfer of the binary part) is refused with one line
naming the likely cause; salvage=True reads it anyway; no corpus trace is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

import traceview
from support import hostile
from support.corpus import corpus_files, corpus_path
from traceview.model import TraceError, TraceFormatError, Variant
from traceview.writer import Style


@pytest.mark.parametrize("variant", ["regular", "streaming", "v2", "data-only"])
@pytest.mark.parametrize("style", ["art", "dalvik"])
def test_text_converted_trace_is_refused(variant: Variant, style: Style) -> None:
    raw = hostile.written(variant, records=20000, style=style)
    bad = hostile.text_converted(raw)
    with pytest.raises(TraceFormatError) as err:
        traceview.load(bad)
    line = err.value.line()
    assert "\n" not in line and "EF BF BD" in line and err.value.offset is not None


@pytest.mark.parametrize("variant", ["regular", "data-only"])
def test_salvage_reads_it_anyway(variant: Variant) -> None:
    bad = hostile.text_converted(hostile.written(variant, records=20000))
    trace = traceview.load(bad, salvage=True)
    trace.validate()
    assert trace.diagnostics[0].code == "damaged-beyond-use"


def test_crlf_expansion_is_named() -> None:
    raw = hostile.written("data-only", records=20000)
    with pytest.raises(TraceFormatError, match="LF to CR LF"):
        traceview.load(raw.replace(b"\n", b"\r\n"))


def test_real_trace_through_a_text_conversion() -> None:
    raw = corpus_path("zhkl0228-tracereader/test1.trace").read_bytes()
    with pytest.raises(TraceFormatError, match="EF BF BD"):
        traceview.load(hostile.text_converted(raw))


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_corpus_trace_is_refused_as_damaged(path: Path) -> None:
    try:
        trace = traceview.load(path)
    except TraceError as err:
        # only the simpleperf recording cut of its header is meant to be read with --salvage
        assert "salvage" not in str(err) or "without its SIMPLEPERF magic" in str(err)
        return
    assert "damaged-beyond-use" not in {d.code for d in trace.diagnostics}
