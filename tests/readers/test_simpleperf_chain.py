"""simpleperf's record length chain walked by the compiled pass (`kernels.framing.chain`,
through `records.lengths`) finds the records and the diagnostics the one-record-at-a-time
walk finds (tests/support/simpleperf_chain.py), on chains of many small records (the pass's
arrays grow between calls), damaged tails, and random bytes."""

from __future__ import annotations

import struct

from hypothesis import given, settings
from hypothesis import strategies as st

from support.simpleperf_chain import lengths as oracle
from traceview.readers.simpleperf.records import lengths


@st.composite
def chains(draw: st.DrawFn) -> tuple[bytes, int]:
    """A header, a chain of records (up to 500, most of a few bytes), then an end marker, a
    cut, a length past the end or random bytes."""
    head = draw(st.binary(max_size=12))
    body = bytearray(head)
    for size in draw(st.lists(st.integers(1, 40), max_size=500)):
        body += struct.pack("<I", size) + bytes(size)
    tail = draw(st.sampled_from(["end", "end+junk", "cut", "past", "junk"]))
    if tail.startswith("end"):
        body += bytes(4)
    if tail == "end+junk" or tail == "junk":
        body += draw(st.binary(min_size=1, max_size=9))
    if tail == "cut":
        body += bytes(draw(st.integers(0, 3)))
    if tail == "past":
        body += struct.pack("<I", 1000) + bytes(draw(st.integers(0, 999)))
    return bytes(body), len(head)


@settings(max_examples=300, deadline=None)
@given(chains())
def test_the_same_records_and_diagnostics(case: tuple[bytes, int]) -> None:
    buf, at = case
    start, size, diags = lengths(buf, at)
    want = oracle(buf, at)
    assert (start.tolist(), size.tolist(), diags) == want


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000), st.integers(0, 40))
def test_random_bytes(buf: bytes, at: int) -> None:
    start, size, diags = lengths(buf, at)
    assert (start.tolist(), size.tolist(), diags) == oracle(buf, at)


def test_a_memoryview_and_thousands_of_records() -> None:
    buf = b"".join(struct.pack("<I", 3) + b"abc" for _ in range(5000)) + bytes(4)
    start, size, diags = lengths(memoryview(buf), 0)
    assert (start.tolist(), size.tolist(), diags) == oracle(buf, 0)
    assert len(start) == 5000 and not diags
