"""Thread ids reused by the VM: where the file shows it (a streaming or V2 thread packet giving
an id that has records a new name, more records after), the id gets a second row."""

from __future__ import annotations

import traceview
from support import readers_bytes as rb
from support.v2bytes import beta_block, header, method_info, summary, thread_info
from traceview.analysis import Session

A, B = 0x7F00001000, 0x7F00002000
INFOS = method_info(A, b"com.ex.Foo\trun\t()V\tFoo.java\n") + method_info(
    B, b"com.ex.Foo\tinner\t(I)J\tFoo.java\n"
)
OPTS = {"clock": "dual", "elapsed-time-nsec": "1000000"}
CALL = [(A, 0, [100, 50]), (B, 0, [300, 120]), (B, 1, [500, 200]), (A, 1, [900, 400])]
LATER = [(A, 0, [1000, 10]), (A, 1, [1500, 30])]


def codes(trace: traceview.Trace) -> set[str]:
    return {d.code for d in trace.diagnostics}


def test_v2_reused_tid_becomes_two_rows() -> None:
    data = (
        header(0xF5)
        + INFOS
        + thread_info(4242, b"first")
        + beta_block(4242, CALL)
        + thread_info(4242, b"second")
        + beta_block(4242, LATER)
        + summary(OPTS, 5)
    )
    trace = traceview.load(data)
    trace.validate()
    assert trace.threads.id.tolist() == [4242, 4242]
    assert trace.threads.name == ("first", "second")
    assert trace.events.thread.tolist() == [0, 0, 0, 0, 1, 1]
    assert trace.events.cpu is not None and trace.events.cpu.tolist()[4:] == [
        10,
        30,
    ]  # not clamped to 400
    assert "thread-id-reused" in codes(trace)
    assert trace.threads.row_of(4242) == 0 and trace.threads.rows_of(4242) == [0, 1]
    s = Session(trace)
    assert int(s.profile(s.query()).calls.sum()) == 3


def test_v2_same_name_again_is_one_row() -> None:
    data = (
        header(0xF5)
        + INFOS
        + thread_info(7, b"main")
        + beta_block(7, CALL)
        + thread_info(7, b"main")
        + beta_block(7, LATER)
    )
    trace = traceview.load(data)
    assert trace.threads.name == ("main",) and "thread-id-reused" not in codes(trace)


def test_v1_streaming_reused_tid_becomes_two_rows() -> None:
    rows = [(3, 0x0, 0, 10, 100), (3, 0x0, 1, 20, 150)]
    later = [(3, 0x4, 0, 5, 300), (3, 0x4, 1, 8, 350)]
    data = bytearray(rb.streaming(rows, threads=[(3, "old")]))
    cut = data.rfind(b"\0\0\x03")
    tail = bytes(data[cut:])
    del data[cut:]
    data += rb.thread_packet(3, "new") + rb.records(later) + tail
    trace = traceview.load(bytes(data))
    trace.validate()
    assert trace.threads.id.tolist() == [3, 3]
    assert trace.threads.name == ("old", "new")
    assert trace.events.thread.tolist() == [0, 0, 1, 1]
    assert trace.events.cpu is not None and trace.events.cpu.tolist() == [
        10_000,
        20_000,
        5_000,
        8_000,
    ]
    assert "thread-id-reused" in codes(trace) and "time-backwards" not in codes(trace)


def test_v1_streaming_rename_without_later_records_keeps_one_row() -> None:
    rows = [(3, 0x0, 0, 10, 100), (3, 0x0, 1, 20, 150)]
    data = bytearray(rb.streaming(rows, threads=[(3, "old")]))
    cut = data.rfind(b"\0\0\x03")
    data[cut:cut] = rb.thread_packet(3, "new")
    trace = traceview.load(bytes(data))
    assert trace.threads.name == ("new",) and "thread-renamed" in codes(trace)
