"""Every file in ../shared/corpus loads with the numbers worked out from its bytes, or is
refused in one line naming the problem, as the one table of tests/support/corpus_table.py
says (how the numbers were counted is written there)."""

from __future__ import annotations

from pathlib import Path

import pytest

import traceview
from support.corpus import CORPUS, corpus_files, corpus_path
from support.corpus_table import EXPECTED, Reads, Refused
from traceview.model import TraceFormatError

LOADS = {rel: e for rel, e in EXPECTED.items() if isinstance(e, Reads)}
ERRORS = {rel: e.words for rel, e in EXPECTED.items() if isinstance(e, Refused)}


def test_table_covers_the_corpus(corpus: Path) -> None:
    names = {p.relative_to(CORPUS).as_posix() for p in corpus_files()}
    assert names == set(EXPECTED)


@pytest.mark.parametrize("rel", sorted(LOADS))
def test_corpus_file_loads(rel: str) -> None:
    path = corpus_path(rel)
    e = LOADS[rel]
    variant, version, clock, records = e.variant, e.version, e.clock, e.records
    threads, methods, sampled, diags = e.threads, e.methods, e.sampled, e.diagnostics
    trace = traceview.load(path)
    trace.validate()
    h = trace.header
    assert (h.variant, h.version, h.clock) == (variant, version, clock)
    assert (len(trace.events), len(trace.threads), len(trace.methods)) == (
        records,
        threads,
        methods,
    )
    assert h.sampled is sampled
    assert {d.code for d in trace.diagnostics} == diags
    assert trace.source == str(path)


@pytest.mark.parametrize("rel", sorted(ERRORS))
def test_corpus_file_errors(rel: str) -> None:
    path = corpus_path(rel)
    with pytest.raises(TraceFormatError) as err:
        traceview.load(path)
    line = err.value.line()
    assert line == f"{path}: " + line.split(": ", 1)[1]
    assert ERRORS[rel] in line
    assert "\n" not in line


def test_streaming_names_from_packets_and_summary() -> None:
    trace = traceview.load(corpus_path("pmadishetti9-profilertester/cpu-art-new.trace"))
    h = trace.header
    assert h.key_version == 3 and h.pid == 26330 and h.elapsed_ns == 4559013 * 1000
    assert "main" in trace.threads.name and None not in trace.threads.name
    assert h.sampling_interval_us is not None and 1000 < h.sampling_interval_us < 1600


def test_non_ascii_names() -> None:
    trace = traceview.load(corpus_path("aosp-perflib-studio/char_2_bytes.trace"))
    assert any(not n.isascii() for n in trace.methods.class_name + trace.methods.name)
    assert not any("\udc80" <= ch <= "\udcff" for n in trace.methods.name for ch in n)
