"""Regular (key + data) V1 traces: layouts, key grammar, ids, clocks and per-thread times."""

from __future__ import annotations

import numpy as np
import pytest

import traceview
from support import readers_bytes as rb
from traceview.model import Trace
from traceview.readers import source as _source


def load(data: bytes) -> Trace:
    trace = traceview.load(data)
    trace.validate()
    return trace


def codes(trace: Trace) -> list[str]:
    return [d.code for d in trace.diagnostics]


ROWS = [(1, 0x0, 0, 0, 10), (1, 0x4, 0, 5, 20), (2, 0x8, 0, 0, 22), (1, 0x4, 1, 9, 30)]


def test_v3_dual_values_in_ns() -> None:
    t = load(rb.regular(ROWS))
    h = t.header
    assert (h.variant, h.version, h.clock, h.key_version, h.record_size) == (
        "regular",
        3,
        "dual",
        3,
        14,
    )
    assert (h.vm, h.pid, h.start_time_us) == ("art", 42, 1234)
    assert h.options == {"clock": "dual", "data-file-overflow": "false", "vm": "art", "pid": "42"}
    assert t.events.cpu is not None
    assert t.events.cpu.tolist() == [0, 5000, 0, 9000]
    assert t.events.wall is not None
    assert t.events.wall.tolist() == [10000, 20000, 22000, 30000]
    assert t.events.action.tolist() == [0, 0, 0, 1]
    assert t.events.method.tolist() == [0, 1, 2, 1]
    assert t.events.thread.tolist() == [0, 0, 1, 0]
    assert t.threads.name == ("main", "worker")
    assert t.methods.id.tolist() == [0, 4, 8]  # method id 0 is a real method
    assert t.methods.label(1) == "com.a.Main.work (I)V"
    assert t.methods.source_file[2] == "Util.java"
    assert t.diagnostics == []


@pytest.mark.parametrize(
    ("clock", "column"), [("thread-cpu", "cpu"), ("wall", "wall"), ("global", "wall")]
)
def test_v2_single_clock(clock: str, column: str) -> None:
    rows = [(1, 0x0, 0, 7), (1, 0x0, 1, 11)]
    t = load(rb.regular(rows, version=2, clock=clock))
    assert t.header.clock == clock
    assert t.events.clocks == (column,)
    assert t.events.time(column).tolist() == [7000, 11000]


def test_v1_nine_byte_records_with_dalvik_six_field_lines() -> None:
    methods = [(0xB6D0601C, "com/test/Basic", "bar", "()I", "Basic.java", 18)]
    rows = [(3, 0xB6D0601C, 0, 1), (3, 0xB6D0601C, 1, 4)]
    t = load(
        rb.regular(rows, version=1, clock="thread-cpu", methods=methods, threads=[(3, "main")])
    )
    assert t.header.record_size == 9
    assert t.methods.class_name == ("com/test/Basic",)
    assert t.methods.line.tolist() == [18]
    assert t.events.cpu is not None
    assert t.events.cpu.tolist() == [1000, 4000]


def test_createtesttrace_sixteen_byte_header() -> None:
    rows = [(1, 0x4, 0, 2), (1, 0x4, 1, 4)]
    t = load(rb.regular(rows, version=2, clock="thread-cpu", offset=16))
    assert t.events.cpu is not None
    assert len(t.events) == 2 and t.events.cpu.tolist() == [2000, 4000]


def test_v3_larger_record_size_extra_bytes_ignored() -> None:
    t = load(rb.regular(ROWS, record_size=20))
    assert t.header.record_size == 20
    assert t.events.wall is not None
    assert t.events.wall.tolist() == [10000, 20000, 22000, 30000]


def test_v3_record_size_18_with_u8_method_ids() -> None:
    import struct

    recs = b"".join(struct.pack("<HQII", tid, mid | act, c, w) for tid, mid, act, c, w in ROWS)
    data = rb.key() + rb.header(3, record_size=18) + recs
    t = load(data)
    assert "wide-method-ids" in codes(t)
    assert t.events.method.tolist() == [0, 1, 2, 1]
    assert t.events.wall is not None
    assert t.events.wall.tolist() == [10000, 20000, 22000, 30000]


def test_id_spellings() -> None:
    methods = [
        "(nil)\tA\ta\t()V\tA.java",
        "0x4\tA\tb\t()V\tA.java",
        "8\tA\tc\t()V\tA.java",
        "0XFFFFFFFC\tA\td\t()V\t(null)",
    ]
    rows = [(1, 0, 0, 0, 0), (1, 4, 0, 1, 1), (1, 8, 0, 2, 2), (1, 0xFFFFFFFC, 0, 3, 3)]
    t = load(rb.regular(rows, methods=methods))
    assert t.methods.id.tolist() == [0, 4, 8, 0xFFFFFFFC]
    assert t.methods.name == ("a", "b", "c", "d")
    assert t.methods.source_file[3] == ""
    assert t.methods.declared.all()


def test_crlf_key_keeps_binary_offset() -> None:
    t = load(rb.regular(ROWS, nl="\r\n"))
    assert "crlf" in codes(t)
    assert t.threads.name == ("main", "worker")
    assert t.methods.signature[0] == "()V"
    assert t.events.wall is not None
    assert t.events.wall.tolist() == [10000, 20000, 22000, 30000]


def test_unknown_threads_and_methods_appended() -> None:
    rows = [(7, 0x40, 0, 0, 0), (1, 0x0, 0, 1, 1), (9, 0x40, 1, 2, 2), (7, 0x44, 0, 3, 3)]
    t = load(rb.regular(rows))
    assert t.threads.id.tolist() == [1, 2, 7, 9]
    assert t.threads.name == ("main", "worker", None, None)
    assert t.threads.label(2) == "[7]"
    assert t.methods.id.tolist() == [0, 4, 8, 0x40, 0x44]
    assert t.methods.declared.tolist() == [True, True, True, False, False]
    assert t.methods.full_name(3) == "(0x40)"
    diags = {d.code: d for d in t.diagnostics}
    assert diags["unknown-thread"].count == 2
    assert diags["unknown-method"].count == 2


def test_duplicate_ids_last_wins() -> None:
    methods = [
        "0x4\tA\tfirst\t()V\tA.java",
        "0x8\tA\tb\t()V\tA.java",
        "0x4\tA\tsecond\t()V\tA.java",
    ]
    threads = [(1, "old"), (2, "two"), (1, "new")]
    t = load(rb.regular([(1, 4, 0, 0, 0)], methods=methods, threads=threads))
    assert t.methods.id.tolist() == [4, 8]  # rows in first-appearance order, last name wins
    assert t.methods.name == ("second", "b")
    assert t.threads.name == ("new", "two")
    assert {"duplicate-method", "duplicate-thread"} <= set(codes(t))


def test_large_key_tid_matches_truncated_record_tid() -> None:
    t = load(rb.regular([(70000 & 0xFFFF, 0, 0, 0, 0)], threads=[(70000, "big")]))
    assert t.threads.id.tolist() == [70000]
    assert "truncated-thread-id" in codes(t)


def test_wraparound_both_clocks() -> None:
    top = 2**32 - 10
    rows = [(1, 0, 0, top, top), (2, 0, 0, 5, 5), (1, 0, 1, 20, 30)]
    t = load(rb.regular(rows))
    assert t.events.cpu is not None
    assert t.events.cpu.tolist() == [top * 1000, 5000, (2**32 + 20) * 1000]
    assert t.events.wall is not None
    assert t.events.wall.tolist() == [top * 1000, 5000, (2**32 + 30) * 1000]
    assert "clock-wrap" in codes(t)


def test_time_backwards_clamped_per_thread() -> None:
    rows = [(1, 0, 0, 100, 100), (2, 0, 0, 1, 1), (1, 0, 0, 90, 95), (1, 0, 1, 120, 130)]
    t = load(rb.regular(rows))
    assert t.events.cpu is not None
    assert t.events.cpu.tolist() == [100000, 1000, 100000, 120000]
    assert t.events.wall is not None
    assert t.events.wall.tolist() == [100000, 1000, 100000, 130000]
    back = next(d for d in t.diagnostics if d.code == "time-backwards")
    assert back.count == 2  # one record, clamped on both clocks


def test_per_thread_chunks_not_globally_sorted() -> None:
    rows = [(1, 0, 0, 0, 100), (1, 0, 1, 5, 200), (2, 0, 0, 0, 50), (2, 0, 1, 3, 60)]
    t = load(rb.regular(rows))
    assert t.events.wall is not None
    assert t.events.wall.tolist() == [100000, 200000, 50000, 60000]
    assert "time-backwards" not in codes(t)


def test_small_chunks_give_the_same_result(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(5)
    n = 3000
    tids = rng.integers(1, 6, n)
    steps = rng.integers(0, 2**29, (n, 2))
    rows = []
    clock: dict[int, list[int]] = {}
    for i in range(n):
        c = clock.setdefault(int(tids[i]), [0, 0])
        c[0] += int(steps[i, 0])
        c[1] += int(steps[i, 1])
        rows.append((int(tids[i]), 4 * int(rng.integers(0, 3)), i % 2, c[0], c[1]))
    data = rb.regular(rows)
    whole = load(data)
    monkeypatch.setattr(_source, "CHUNK_BYTES", 14 * 97)
    chunked = load(data)
    for col in ("thread", "method", "action", "cpu", "wall"):
        assert np.array_equal(getattr(whole.events, col), getattr(chunked.events, col))
    assert "clock-wrap" in codes(whole) and "time-backwards" not in codes(whole)
    expect = np.array([r[4] for r in rows], dtype=np.int64) * 1000
    assert whole.events.wall is not None
    assert np.array_equal(whole.events.wall, expect)


def test_missing_clock_option() -> None:
    t = load(rb.regular(ROWS, clock=None))
    assert t.header.clock == "dual"
    assert "clock-missing" in codes(t)
    t2 = load(rb.regular([(1, 0, 0, 1)], version=2, clock=None))
    assert t2.header.clock == "thread-cpu"


def test_clock_option_contradicting_records() -> None:
    t = load(rb.regular([(1, 0, 0, 1)], version=2, clock="dual"))
    assert t.header.clock == "thread-cpu"
    assert "clock-mismatch" in codes(t)


def test_unknown_options_kept_in_order() -> None:
    opts = ("zeta=1", "data-file-overflow=true", "alpha=x=y", "elapsed-time-usec=77")
    t = load(rb.regular(ROWS, options=opts))
    assert list(t.header.options) == [
        "clock",
        "zeta",
        "data-file-overflow",
        "alpha",
        "elapsed-time-usec",
    ]
    assert t.header.options["alpha"] == "x=y"
    assert t.header.overflow and t.header.elapsed_ns == 77000
    assert "data-file-overflow" in codes(t)


def test_elapsed_nsec() -> None:
    t = load(rb.regular(ROWS, options=("elapsed-time-nsec=1234567",)))
    assert t.header.elapsed_ns == 1234567


def test_truncated_last_record() -> None:
    data = rb.regular(ROWS)[:-5]
    t = load(data)
    assert len(t.events) == 3
    d = next(d for d in t.diagnostics if d.code == "truncated-record")
    assert d.offset == len(data) - 9 and d.count == 9


def test_action_three_read_as_exit() -> None:
    t = load(rb.regular([(1, 0, 0, 0, 0), (1, 0, 3, 1, 1)]))
    assert t.events.action.tolist() == [0, 1]
    assert "bad-action" in codes(t)


def test_key_data_version_mismatch() -> None:
    t = load(rb.regular([(1, 0, 0, 1)], version=2, key_version=3, clock="wall"))
    assert t.header.version == 2 and t.header.key_version == 3
    assert "version-mismatch" in codes(t)


def test_dalvik_fill_pattern_ends_trace() -> None:
    rows = [(1, 0, 0, 0, 0), (1, 0xEEEEEEEC, 2, 0xEEEEEEEE, 0xEEEEEEEE), (1, 0, 1, 5, 5)]
    t = load(rb.regular(rows, options=("vm=dalvik",)))
    assert len(t.events) == 1
    assert "unwritten-record" in codes(t)


def test_num_method_calls_mismatch() -> None:
    t = load(rb.regular(ROWS, options=("num-method-calls=10",)))
    assert "record-count-mismatch" in codes(t)


def test_wall_unit_bug_scaled() -> None:
    rows = [(1, 0, 0, 0, 0), (1, 0, 0, 20_000, 20), (1, 0, 1, 40_000, 41)]
    t = load(rb.regular(rows, options=("elapsed-time-usec=50",)))
    assert "wall-unit-bug" in codes(t)
    assert t.events.wall is not None
    assert t.events.wall.tolist() == [0, 20_000_000, 41_000_000]
    assert t.header.elapsed_ns == 50_000_000
    odd = load(rb.regular([(1, 0, 0, 0, 0), (1, 0, 1, 20_000, 1)]))  # 20000x: not the bug
    assert "wall-unit-bug" not in codes(odd)


def test_names_decoded_losslessly() -> None:
    mutf8 = b"A" + b"\xed\xa0\xbd\xed\xb8\x80"  # U+1F600 as a surrogate pair
    bad = b"caf\xe9"
    text = rb.key(methods=[], threads=[(1, "x")]).replace(
        b"*methods\n",
        b"*methods\n0x4\t" + mutf8 + b"\trun\t()V\tA.java\n0x8\t" + bad + b"\trun\t()V\tB.java\n",
    )
    t = load(text + rb.header() + rb.records([(1, 4, 0, 0, 0)]))
    assert t.methods.class_name[0] == "A\U0001f600"
    assert t.methods.class_name[1].encode("utf-8", "surrogateescape") == bad
    assert {"modified-utf8", "bad-name-encoding"} <= set(codes(t))


def test_sampled_trace_detected() -> None:
    rows = []
    for s in range(60):
        t = s * 1000
        rows += [(1, 4, 1, t, t), (1, 8, 0, t, t), (2, 4, 0, t + 1, t + 1), (2, 4, 1, t + 1, t + 1)]
    trace = load(rb.regular(rows))
    assert trace.header.sampled
    assert trace.header.sampling_interval_us == pytest.approx(1000, rel=0.05)
    instrumented = load(rb.regular([(1, 0, i % 2, i * 3, i * 5) for i in range(100)]))
    assert not instrumented.header.sampled and instrumented.header.sampling_interval_us is None


def test_zero_records() -> None:
    t = load(rb.regular([]))
    assert len(t.events) == 0 and len(t.threads) == 2 and len(t.methods) == 3


def test_odd_record_sizes() -> None:
    data = (
        rb.key(clock="wall") + rb.header(3, record_size=10) + rb.records([(1, 0, 0, 7)], version=2)
    )
    t = load(data)
    assert "bad-record-size" in codes(t) and t.events.clocks == ("wall",)
    assert t.events.wall is not None
    assert t.events.wall.tolist() == [7000]
    t0 = load(rb.key() + rb.header(3, record_size=0) + rb.records(ROWS))
    assert "bad-record-size" in codes(t0) and len(t0.events) == 4


def test_bad_data_offset_assumes_32() -> None:
    import struct

    head = b"SLOW" + struct.pack("<HHQH", 3, 0, 0, 14)
    t = load(rb.key() + head.ljust(32, b"\0") + rb.records(ROWS))
    assert "bad-data-offset" in codes(t) and len(t.events) == 4


def test_header_cut_inside_padding() -> None:
    t = load(rb.regular(ROWS)[: len(rb.key()) + 20])
    assert len(t.events) == 0 and "truncated-record" in codes(t)


def test_unknown_clock_value_and_bad_key_lines() -> None:
    data = rb.regular([(1, 0, 0, 3)], version=2, clock="cycles", options=("no equals sign",))
    t = load(data)
    assert t.header.clock == "thread-cpu"
    assert {"unknown-clock", "bad-key-line"} <= set(codes(t))
    bad = next(d for d in t.diagnostics if d.code == "bad-key-line")
    assert bad.offset == data.index(b"no equals sign")


def test_utf8_bom_before_the_key() -> None:
    t = load(b"\xef\xbb\xbf" + rb.regular(ROWS))
    assert "bom" in codes(t) and t.header.key_version == 3
    assert t.events.wall is not None
    assert t.events.wall.tolist() == [10000, 20000, 22000, 30000]


def test_eighteen_byte_records_with_zero_padding_are_not_wide() -> None:
    t = load(rb.regular(ROWS, record_size=18))
    assert "wide-method-ids" not in codes(t)
    assert t.events.wall is not None
    assert t.events.wall.tolist() == [10000, 20000, 22000, 30000]
