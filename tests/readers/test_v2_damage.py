"""V2 reader on damaged bytes: truncation, garbage, bit flips, bad headers. Every input gives a
valid Trace (with diagnostics) or a TraceFormatError, never another exception or a hang."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support.v2bytes import beta_block, header, method_info, summary, thread_info
from traceview.model import Trace, TraceFormatError
from traceview.readers.v2 import read
from traceview.synth import generate
from traceview.writer.v2 import write_v2

A, B = 0x7000_1000, 0x7000_1040
INFOS = method_info(A, b"a.B\tc\t()V\tB.java\n") + method_info(B, b"a.B\td\t()V\tB.java\n")
RECS = [(A, 0, [10, 5]), (B, 0, [20, 6]), (B, 1, [30, 7]), (A, 1, [40, 8])]
OPTS = {"clock": "dual", "elapsed-time-nsec": "50"}
GOOD = header(0xF5) + INFOS + thread_info(1, b"t") + beta_block(1, RECS) + summary(OPTS, 5)


def small_file(generation: str) -> bytes:
    buf = io.BytesIO()
    trace = generate(60, threads=2, seed=1, balanced=True)
    write_v2(trace, buf, streaming=True, generation=generation, block_records=16)
    return buf.getvalue()


SMALL = {g: small_file(g) for g in ("alpha", "beta", "gamma")}


def outcome(data: bytes) -> Trace | None:
    """Read `data`; a Trace must validate, a TraceFormatError is fine, anything else fails."""
    try:
        trace = read(data)
    except TraceFormatError as err:
        assert err.offset is None or 0 <= err.offset <= len(data)
        return None
    trace.validate()
    return trace


def codes(trace: Trace | None) -> list[str]:
    assert trace is not None
    return [d.code for d in trace.diagnostics]


def test_record_count_mismatch() -> None:
    opts = {**OPTS, "num-method-calls": "5"}
    data = header(5) + INFOS + thread_info(1, b"t") + beta_block(1, RECS) + summary(opts, 5)
    assert "record-count-mismatch" in codes(outcome(data))


def test_truncated_last_block_keeps_complete_records() -> None:
    block_at = GOOD.index(beta_block(1, RECS))
    cut = GOOD[: block_at + 12 + 7]  # header + the first two records (3 + 4 bytes... partial)
    trace = outcome(cut)
    assert trace is not None and 1 <= len(trace.events) < 4
    diag = next(d for d in trace.diagnostics if d.code == "truncated-block")
    assert diag.offset == block_at


def test_trailing_garbage_is_reported() -> None:
    trace = outcome(GOOD + b"\xee\xee\xee")
    assert trace is not None and len(trace.events) == 4
    diag = next(d for d in trace.diagnostics if d.code == "trailing-bytes")
    assert diag.offset == len(GOOD) and diag.count == 3


def test_header_only_is_an_empty_trace() -> None:
    trace = outcome(header(5))
    assert trace is not None and len(trace.events) == 0 and "no-events" in codes(trace)


@pytest.mark.parametrize(
    ("data", "offset"),
    [
        (b"", 0),
        (b"SLOW\x05\x00", 6),
        (b"WOLS" + bytes(28), 0),
        (header(3), 4),
        (header(0x15), 4),
        (header(5) + b"\x09rest", 32),
    ],
)
def test_nothing_usable_raises_with_offset(data: bytes, offset: int) -> None:
    with pytest.raises(TraceFormatError) as info:
        read(data)
    assert info.value.offset == offset


def test_action_three_reads_as_exit() -> None:
    recs = [(A, 0, [1, 1]), (A, 3, [2, 2])]
    trace = outcome(header(0xF5) + INFOS + thread_info(1, b"t") + beta_block(1, recs))
    assert trace is not None and trace.events.action.tolist() == [0, 1]
    assert "unknown-action" in codes(trace)


def test_block_with_wrong_count_is_salvaged() -> None:
    block = bytearray(beta_block(1, RECS))
    block[5] = 9  # claims 9 records, holds 4
    later = [(m, a, [t[0] + 100, t[1] + 100]) for m, a, t in RECS]
    blocks = bytes(block) + beta_block(1, later) + beta_block(1, later)
    data = header(0xF5) + INFOS + thread_info(1, b"t") + blocks + summary(OPTS, 5)
    trace = outcome(data)
    assert trace is not None and len(trace.events) == 12
    assert trace.header.entry_format == "beta" and trace.header.clock == "dual"
    assert "bad-block" in codes(trace)


@pytest.mark.parametrize("generation", ["alpha", "beta", "gamma"])
def test_every_truncation(generation: str) -> None:
    data = SMALL[generation]
    full = outcome(data)
    assert full is not None and full.header.entry_format == generation
    for n in range(len(data)):
        outcome(data[:n])


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_after_header(tail: bytes) -> None:
    for version in (4, 5, 0xF5):
        outcome(header(version) + tail)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["alpha", "beta", "gamma"]), st.data())
def test_bit_flips(generation: str, data: st.DataObject) -> None:
    raw = bytearray(SMALL[generation])
    flips = data.draw(st.lists(st.integers(0, len(raw) * 8 - 1), min_size=1, max_size=6))
    for bit in flips:
        raw[bit // 8] ^= 1 << (bit % 8)
    outcome(bytes(raw))


@settings(max_examples=100, deadline=None)
@given(st.binary(min_size=1, max_size=40), st.integers(0, 400))
def test_spliced_bytes(junk: bytes, at: int) -> None:
    raw = SMALL["beta"]
    at = 32 + at % (len(raw) - 32)
    outcome(raw[:at] + junk + raw[at:])


LATER = [(m, a, [t[0] + 100, t[1] + 100]) for m, a, t in RECS]


def test_garbage_between_blocks_is_skipped() -> None:
    head = header(0xF5) + INFOS + thread_info(1, b"t") + beta_block(1, RECS)
    junk = b"\x07\xff\x09\x88" * 5
    trace = outcome(head + junk + beta_block(1, LATER) + summary(OPTS, 5))
    assert trace is not None and len(trace.events) == 8
    diag = next(d for d in trace.diagnostics if d.code == "skipped-bytes")
    assert diag.offset == len(head) and diag.count == len(junk)
    assert trace.header.elapsed_ns == 50  # the summary after the damage is read too


def test_block_size_past_eof_resyncs() -> None:
    middle = bytearray(beta_block(1, LATER))
    middle[8:12] = (10**6).to_bytes(4, "little")  # size field now runs far past the end
    later2 = [(m, a, [t[0] + 200, t[1] + 200]) for m, a, t in RECS]
    data = header(0xF5) + INFOS + thread_info(1, b"t") + beta_block(1, RECS) + bytes(middle)
    trace = outcome(data + beta_block(1, later2) + summary(OPTS, 5))
    assert trace is not None and len(trace.events) == 12
    assert "bad-block-size" in codes(trace)


def test_damaged_method_info_resyncs() -> None:
    bad = bytearray(method_info(A, b"a.B\tc\t()V\tB.java\n"))
    bad[9:11] = (60000).to_bytes(2, "little")  # length runs past the end
    data = header(0xF5) + bytes(bad) + method_info(B, b"a.B\td\t()V\tB.java\n")
    trace = outcome(data + thread_info(1, b"t") + beta_block(1, RECS) + summary(OPTS, 5))
    assert trace is not None and len(trace.events) == 4
    assert trace.methods.declared.tolist() == [True, False]
    assert "skipped-bytes" in codes(trace)
