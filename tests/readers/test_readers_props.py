"""Property tests: any bytes give a valid Trace or a TraceFormatError, never another exception."""

from __future__ import annotations

import gzip

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import traceview
from support import readers_bytes as rb
from traceview.model import TraceFormatError

ROWS = [(1, 0x0, 0, 0, 10), (2, 0x8, 0, 0, 12), (1, 0x4, 0, 5, 20), (1, 0x4, 1, 9, 30)]
SMALL = {
    "regular": rb.regular(ROWS),
    "v1": rb.regular([(1, 4, 0, 1), (1, 4, 1, 2)], version=1, clock="thread-cpu"),
    "streaming": rb.streaming(ROWS),
    "data-only": rb.header() + rb.records(ROWS),
}


def check(data: bytes) -> None:
    try:
        trace = traceview.load(data)
    except TraceFormatError as err:
        assert "\n" not in err.line()
        return
    trace.validate()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=512))
def test_random_bytes(data: bytes) -> None:
    check(data)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from([b"*version\n3\n", b"SLOW\x03\x00", b"SLOW\xf3\x00", b"\x1f\x8b"]), st.binary()
)
def test_random_bytes_after_a_magic(prefix: bytes, rest: bytes) -> None:
    check(prefix + rest)


@pytest.mark.parametrize("name", sorted(SMALL))
def test_every_truncation(name: str) -> None:
    data = SMALL[name]
    for n in range(len(data) + 1):
        check(data[:n])
    gz = gzip.compress(data)
    for n in range(len(gz) + 1):
        check(gz[:n])


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(sorted(SMALL)),
    st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 7)), min_size=1, max_size=4),
)
def test_bit_flips(name: str, flips: list[tuple[int, int]]) -> None:
    data = bytearray(SMALL[name])
    for at, bit in flips:
        data[at % len(data)] ^= 1 << bit
    check(bytes(data))


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(1, 5),
            st.sampled_from([0, 4, 8, 12, 0xFFFFFFFC]),
            st.integers(0, 3),
            st.integers(0, 2**32 - 1),
            st.integers(0, 2**32 - 1),
        ),
        max_size=60,
    )
)
def test_any_records_decode(rows: list[tuple[int, int, int, int, int]]) -> None:
    trace = traceview.load(rb.regular(rows))
    trace.validate()
    assert len(trace.events) == len(rows)


def reference_times(rows: list[tuple[int, int, int, int, int]], field: int) -> list[int]:
    """Per-record Python model of the V1 clock rules: unwrap drops > 2^31, clamp the rest."""
    last: dict[int, int] = {}
    top: dict[int, int] = {}
    out = []
    for row in rows:
        tid, raw = row[0], row[field]
        if tid not in last:
            value = raw
        else:
            step = raw - (last[tid] & 0xFFFFFFFF)
            if step < -(2**31):
                step += 2**32
            value = last[tid] + step
        last[tid] = value
        top[tid] = max(top.get(tid, value), value)
        out.append(top[tid] * 1000)
    return out


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(1, 4),
            st.just(4),
            st.just(0),
            st.integers(0, 2**32 - 1),
            st.integers(0, 2**32 - 1),
        ),
        max_size=80,
    ),
    st.integers(14, 14 * 9),
)
def test_clock_rules_match_a_per_record_model(
    rows: list[tuple[int, int, int, int, int]], chunk: int
) -> None:
    from traceview.readers import source as _source

    old = _source.CHUNK_BYTES
    _source.CHUNK_BYTES = chunk  # several chunks: carries between chunks are exercised
    try:
        trace = traceview.load(rb.regular(rows))
    finally:
        _source.CHUNK_BYTES = old
    trace.validate()
    assert trace.events.cpu is not None and trace.events.wall is not None
    assert trace.events.cpu.tolist() == reference_times(rows, 3)
    scale = 1000 if "wall-unit-bug" in {d.code for d in trace.diagnostics} else 1
    assert trace.events.wall.tolist() == [t * scale for t in reference_times(rows, 4)]
