"""The writer on real traces (../shared/corpus, skipped when absent): every readable file
round-trips, and for files VMs wrote in the writer's own dialect, write(read(f)) is f itself."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from support.corpus import corpus_files, corpus_path
from support.writer_out import written
from traceview import load
from traceview.model import TraceFormatError, Variant

# regular files byte-identical after a round trip (others differ only in the ways noted in
# docs: `0x0` vs `0` for method 0 in 2015-16 ART, upper-case hex, a stray trailing byte, ...)
IDENTICAL = [
    "aosp-perflib/basic-api10.trace",
    "aosp-perflib/basic.trace",
    "aosp-perflib/exception.trace",
    "aosp-perflib/mismatched.trace",
    "chanjin-traceviewlog/SNS_Tracing_2_Refresh.trace",
    "firefox-profiler/art-trace-regular.trace.gz",
    "forever001-launcher/app.trace",
    "jagormley-jagandroidframework/dmtrace.trace",
    "lilong9898-androidtracedataanalyzer/example_dmtrace.trace",
    "sentry-vroom-specto/data_file_overflow.trace",
    "sentry-vroom-specto/no_methods_no_records.trace",
    "zhkl0228-tracereader/test1.trace",
]


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
@pytest.mark.parametrize("variant", ["regular", "streaming"])
def test_corpus_round_trip(path: Path, variant: Variant) -> None:
    try:
        trace = load(path)
    except TraceFormatError:
        pytest.skip("not a readable trace (tested by the readers)")
    trace.validate()
    first = written(trace, variant=variant)
    back = load(first)
    back.validate()
    assert written(back, variant=variant) == first
    ev, bk = trace.events, back.events
    assert np.array_equal(ev.action, bk.action)
    assert np.array_equal(trace.threads.id[ev.thread], back.threads.id[bk.thread])
    assert np.array_equal(trace.methods.id[ev.method], back.methods.id[bk.method])
    # V1 records hold µs: a simpleperf recording's ns times come back truncated to them
    unit = 1000 if trace.header.variant == "simpleperf" else 1
    for clock in ev.clocks:
        assert np.array_equal(ev.time(clock) // unit * unit, bk.time(clock))


@pytest.mark.parametrize("relative", IDENTICAL)
def test_corpus_rewritten_identically(relative: str) -> None:
    path = corpus_path(relative)
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    assert written(load(path)) == raw
