"""Hostile Android 16 low-overhead dumps: wrong packet lengths, a type byte never seen, counts
far beyond the bytes, mutations of real-looking dumps. Each gives a trace that validates and
says what it repaired, or one error line; memory follows the bytes, never a header's count."""

from __future__ import annotations

import struct
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support.lowoverhead_oracle import method_info, summary, thread_info, timed_block
from traceview.model import TraceError
from traceview.readers import load
from traceview.synth import generate
from traceview.writer.lowoverhead import dump_bytes

RUN, WORK = 0x7F00_1000, 0x7F00_0F80
BLOCK = timed_block(3, [(10**9, False, RUN), (2 * 10**9, False, WORK), (3 * 10**9, True, 0)])
INFOS = method_info(RUN, "a.B\trun\t()V\tB.java\n") + method_info(WORK, "a.B\twork\t()V\tB.java\n")
GOOD = BLOCK + summary(4 * 10**9, 5 * 10**9) + INFOS


def loaded_or_one_line(data: bytes) -> set[str]:
    """The diagnostic codes of a trace that validates, or {"error"} after one error line."""
    try:
        trace = load(data)
    except TraceError as exc:
        assert "\n" not in str(exc)
        return {"error"}
    trace.validate()
    return {d.code for d in trace.diagnostics}


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (BLOCK + bytes([9]) + INFOS, "unknown-packet"),  # a type byte never seen
        (BLOCK + b"\x01" + struct.pack("<QH", RUN, 60000) + b"x", "truncated-record"),
        (BLOCK + thread_info(3, "main")[:-2], "truncated-record"),
        (BLOCK + b"\x03" + bytes(9), "truncated-record"),  # a summary of 10 bytes, not 17
        (BLOCK[:8] + struct.pack("<I", 0xFFFF_FFF0) + BLOCK[12:] + INFOS, "truncated-block"),
    ],
)
def test_damaged_packets_are_said(data: bytes, code: str) -> None:
    codes = loaded_or_one_line(data)
    assert code in codes or codes == {"error"}, codes


def test_a_block_length_too_short_runs_into_the_next_packet() -> None:
    short = BLOCK[:8] + struct.pack("<I", 3) + BLOCK[12:] + INFOS
    assert loaded_or_one_line(short) - {"long-running-methods-only"}


@pytest.mark.parametrize("mode", ["long-running", "all"])
def test_billions_of_declared_events(mode: str) -> None:
    """Headers claiming 2^24 - 1 events each (billions over the file) on a few bytes."""
    size = struct.pack("<I", 6) if mode == "long-running" else b"\xee" * 4
    head = b"\x02" + struct.pack("<I", 1) + (2**24 - 1).to_bytes(3, "little") + size
    data = (head + b"\x80\x80\x80\x80\x80\x01") * 2000 + INFOS
    tracemalloc.start()
    try:
        codes = loaded_or_one_line(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert codes == {"error"} or "block-count-mismatch" in codes
    assert peak < 64 << 20


MUTATIONS = st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), max_size=6)


@settings(max_examples=150, deadline=None)
@given(MUTATIONS, st.integers(0, 10**6), st.sampled_from(["long-running", "all"]))
def test_mutated_dumps(changes: list[tuple[int, int]], cut: int, mode: str) -> None:
    trace = generate(200, threads=2, seed=7, clock="wall", balanced=True)
    data = bytearray(dump_bytes(trace, mode=mode, block_events=40))
    for at, value in changes:
        data[at % len(data)] = value
    loaded_or_one_line(bytes(data[: max(1, len(data) - cut % len(data))]))


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_after_a_summary(tail: bytes) -> None:
    loaded_or_one_line(summary(1, 2) + tail)
