"""Damaged and hostile simpleperf files: a result with diagnostics, or one line naming the byte;
memory follows the bytes present, never a declared length."""

from __future__ import annotations

import gzip
import random
import struct
import tracemalloc

import pytest

import traceview
from support import simpleperf_bytes as sp
from traceview.model import NotATraceError, TraceError, TraceFormatError

FILES = [sp.file(0, "/system/lib64/libc.so", ["read", "write"])]
SAMPLES = [sp.sample(1000 * k, 1 + k % 2, [sp.Frame(0, k % 2), sp.Frame(0, 0)]) for k in range(8)]
GOOD = sp.recording([sp.meta(["cpu-clock"]), *FILES, sp.thread(1, 1, "a"), *SAMPLES])


def codes(trace: traceview.Trace) -> set[str]:
    return {d.code for d in trace.diagnostics}


def samples_read(trace: traceview.Trace) -> int:
    return int(trace.header.options["samples"])


def test_the_good_file() -> None:
    trace = traceview.load(GOOD)
    trace.validate()
    assert samples_read(trace) == 8
    assert codes(trace) == {"unknown-thread"}  # thread 2 has no record


def test_cut_inside_a_record() -> None:
    trace = traceview.load(GOOD[:-20])
    trace.validate()
    assert "truncated-record" in codes(trace) and samples_read(trace) == 7
    d = next(d for d in trace.diagnostics if d.code == "truncated-record")
    assert d.offset == len(GOOD) - 4 - (4 + len(SAMPLES[-1]))  # the last record's length


def test_no_end_marker_and_trailing_bytes() -> None:
    assert "no-end-marker" in codes(traceview.load(GOOD[:-4]))
    assert "no-end-marker" in codes(traceview.load(GOOD[:-2]))
    trailing = traceview.load(GOOD + b"junk")
    assert "trailing-bytes" in codes(trailing) and samples_read(trailing) == 8


def test_huge_declared_length_costs_nothing() -> None:
    data = sp.recording([*FILES, *SAMPLES[:2]], end=False) + struct.pack("<I", 0xFFFF_FFF0)
    tracemalloc.start()
    try:
        trace = traceview.load(data + bytes(100))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "truncated-record" in codes(trace) and samples_read(trace) == 2
    assert peak < 8 << 20


def test_unknown_and_bad_records_are_skipped() -> None:
    unknown = sp.blob(9, b"\x08\x01")  # a Record kind this reader does not know
    not_one_field = sp.num(1, 5)  # a varint, not a length-delimited Record field
    trace = traceview.load(sp.recording([*FILES, unknown, SAMPLES[0], not_one_field, SAMPLES[1]]))
    assert {"unknown-record", "bad-record"} <= codes(trace)
    assert samples_read(trace) == 2
    unknown_note = next(d for d in trace.diagnostics if d.code == "unknown-record")
    assert unknown_note.count == 1 and unknown_note.offset == 12 + 4 + len(FILES[0])


def test_a_sample_that_does_not_decode_is_dropped() -> None:
    cut = sp.blob(1, sp.num(1, 5) + b"\x1a\x05\x08\x01")  # an entry longer than its sample
    trace = traceview.load(sp.recording([*FILES, SAMPLES[0], cut, SAMPLES[1]]))
    assert "bad-sample" in codes(trace) and samples_read(trace) == 2


def test_gzip() -> None:
    assert samples_read(traceview.load(gzip.compress(GOOD))) == 8


def test_headerless_refused_at_byte_0_unless_salvage() -> None:
    data = GOOD[12:]
    with pytest.raises(TraceFormatError) as err:
        traceview.load(data)
    assert err.value.offset == 0 and "SIMPLEPERF magic" in err.value.line()
    trace = traceview.load(data, salvage=True)
    assert samples_read(trace) == 8 and "missing-header" in codes(trace)


def test_perfetto_is_named_with_what_to_do() -> None:
    with pytest.raises(NotATraceError) as err:
        traceview.load(b"\x0a\x10" + bytes(16))
    line = err.value.line()
    assert "Perfetto system trace" in line and "ui.perfetto.dev" in line
    assert "--merge-into" in line and "\n" not in line


def test_mutations_give_a_trace_or_one_error() -> None:
    rng = random.Random(5)
    for _ in range(300):
        data = bytearray(GOOD)
        for _ in range(rng.randint(1, 6)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        if rng.random() < 0.3:
            data = data[: rng.randrange(len(data))]
        try:
            trace = traceview.load(bytes(data), salvage=True)
        except TraceError as err:
            assert "\n" not in str(err)
            continue
        trace.validate()


def test_a_very_long_chain_in_another_layout() -> None:
    """20,000 entries in the order 3, 2, 1 (not simpleperf's): read whole, the walk handing
    the long sample to the plain decoder rather than stepping 20,000 times."""
    entry = sp.blob(3, sp.num(3, 1) + sp.num(2, 0) + sp.num(1, 0x10))
    body = sp.num(1, 5) + sp.num(2, 1) + entry * 20_000 + sp.num(4, 250_000)
    trace = traceview.load(sp.recording([*FILES, sp.blob(1, body), SAMPLES[0]]))
    trace.validate()
    assert samples_read(trace) == 2
    on_one = trace.events.thread == trace.threads.row_of(1)
    assert int(on_one.sum()) == 2 * 20_000 + 2 * 2  # one write frame per entry, then SAMPLES[0]
