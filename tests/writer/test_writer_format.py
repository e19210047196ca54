"""The writer's bytes against format.md §1.2-1.5 and (b): headers, record layouts, key lines in
ART and Dalvik style, streaming packets and summary, and the choices it refuses."""

from __future__ import annotations

import io
import struct
from typing import Any

import numpy as np
import pytest

from support.tracebuild import make_trace
from support.writer_out import written
from traceview.writer import write

EVENTS = [
    (1, "enter", "com.a.Foo.run", 0, 0),
    (2, "enter", "com.a.Bar.go", 0, 5),
    (1, "exit", "com.a.Foo.run", 7, 9),
    (2, "unroll", "com.a.Bar.go", 3, 12),
]


def _data(blob: bytes) -> bytes:
    return blob[blob.index(b"*end\n") + 5 :]


def test_regular_v3_layout() -> None:
    trace = make_trace(EVENTS, clock="dual")
    blob = written(trace)
    key, data = blob.split(b"*end\n")
    # the trace's options keep their order; computed ones missing are appended
    options = b"clock=dual\nvm=art\ndata-file-overflow=false\nelapsed-time-usec=12\n"
    assert key.startswith(b"*version\n3\n" + options + b"num-method-calls=4\n*threads\n")
    assert b"*threads\n1\tthread-1\n2\tthread-2\n*methods\n" in key
    # tracebuild ids are 4, 8: ART `%#x`, class dotted, 5 fields
    assert b"\n0x4\tcom.a.Foo\trun\t()V\t(null)\n0x8\tcom.a.Bar\tgo\t()V\t(null)\n" in key
    magic, version, offset, start, size = struct.unpack_from("<IHHQH", data)
    assert (magic, version, offset, start, size) == (0x574F4C53, 3, 32, 0, 14)
    assert data[18:32] == bytes(14)
    rec = np.frombuffer(
        data[32:], dtype=[("t", "<u2"), ("v", "<u4"), ("cpu", "<u4"), ("wall", "<u4")]
    )
    assert rec["t"].tolist() == [1, 2, 1, 2]
    assert rec["v"].tolist() == [4, 8, 5, 10]
    assert rec["cpu"].tolist() == [0, 0, 7, 3]
    assert rec["wall"].tolist() == [0, 5, 9, 12]


def test_art_first_method_id_is_zero_and_dalvik_style() -> None:
    trace = make_trace(EVENTS, clock="thread-cpu", version=2)
    from dataclasses import replace

    zero = replace(trace, methods=replace(trace.methods, id=np.array([0, 4], dtype=np.uint64)))
    assert b"*methods\n0\tcom.a.Foo\trun\t()V\t(null)\n0x4\t" in written(zero)
    dalvik = written(zero, style="dalvik", version=1)
    assert b"vm=dalvik\n" in dalvik
    assert b"*methods\n0x00000000\tcom/a/Foo\trun\t()V\t\t-1\n0x00000004\tcom/a/Bar\t" in dalvik
    data = _data(dalvik)
    assert struct.unpack_from("<H", data, 4)[0] == 1
    assert len(data) == 32 + 4 * 9  # v1: u1 thread, u4 method, u4 time


def test_v2_single_clock_records_and_wall_clock() -> None:
    trace = make_trace(EVENTS, clock="dual")
    blob = written(trace, clock="wall")
    assert b"clock=wall\n" in blob
    data = _data(blob)
    assert struct.unpack_from("<H", data, 4)[0] == 2
    rec = np.frombuffer(data[32:], dtype=[("t", "<u2"), ("v", "<u4"), ("time", "<u4")])
    assert rec["time"].tolist() == [0, 5, 9, 12]


def test_times_wrap_to_32_bits() -> None:
    big = (1 << 32) + 17
    trace = make_trace([(1, "enter", "a.B.c", 0, 0), (1, "exit", "a.B.c", 1, big)])
    rec = _data(written(trace))[32:]
    assert struct.unpack_from("<I", rec, 14 + 10)[0] == 17


def test_streaming_packets_and_summary() -> None:
    trace = make_trace(EVENTS, clock="dual")
    blob = written(trace, variant="streaming")
    assert blob[:4] == b"SLOW" and struct.unpack_from("<H", blob, 4)[0] == 0xF3
    pos = 32
    # thread packet then method packet before the first record
    assert blob[pos : pos + 3] == b"\0\0\x02"
    tid, n = struct.unpack_from("<HH", blob, pos + 3)
    assert (tid, blob[pos + 7 : pos + 7 + n]) == (1, b"thread-1")
    pos += 7 + n
    assert blob[pos : pos + 3] == b"\0\0\x01"
    (n,) = struct.unpack_from("<H", blob, pos + 3)
    assert blob[pos + 5 : pos + 5 + n] == b"0x4\tcom.a.Foo\trun\t()V\t(null)\n"
    pos += 5 + n
    assert struct.unpack_from("<HI", blob, pos) == (1, 4)  # first record
    summary_at = blob.rindex(b"\0\0\x03")
    (n,) = struct.unpack_from("<I", blob, summary_at + 3)
    text = blob[summary_at + 7 :]
    assert len(text) == n and text.startswith(b"*version\n3\n") and text.endswith(b"*end\n")
    assert b"*threads\n*methods\n0x4\t" in text  # ART >= 2023: names only in packets
    assert b"num-method-calls" not in text
    nosummary = written(trace, variant="streaming-nosummary")
    assert nosummary == blob[:summary_at]


def test_data_only_is_the_data_section() -> None:
    trace = make_trace(EVENTS, clock="dual")
    assert written(trace, variant="data-only") == _data(written(trace))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"version": 3, "clock": "wall"}, "cannot hold"),
        ({"version": 2}, "cannot hold"),
        ({"version": 7}, "must be 1, 2 or 3"),
        ({"record_size": 12}, "record size"),
        ({"data_offset": 16}, "too small"),
        ({"variant": "nope"}, "unknown variant"),
    ],
)
def test_refused_choices(options: dict[str, Any], message: str) -> None:
    trace = make_trace(EVENTS, clock="dual")
    with pytest.raises(ValueError, match=message):
        write(trace, io.BytesIO(), **options)


def test_missing_clock_and_big_thread_ids_are_refused() -> None:
    trace = make_trace([(1, "enter", "a.B.c", 3, None)], clock="thread-cpu", version=2)
    with pytest.raises(ValueError, match="wall"):
        write(trace, io.BytesIO(), clock="dual")
    wide = make_trace([(300, "enter", "a.B.c", 3, 4)], clock="dual")
    with pytest.raises(ValueError, match="thread id 300"):
        write(wide, io.BytesIO(), clock="wall", version=1)
    zero = make_trace([(0, "enter", "a.B.c", 3, 4)], clock="dual")
    with pytest.raises(ValueError, match="escape"):
        write(zero, io.BytesIO(), variant="streaming")
    with pytest.raises(ValueError, match="path"):
        write(trace, io.BytesIO(), variant="split")
