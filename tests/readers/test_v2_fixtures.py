"""V2 reader on hand-packed bytes of every entry-block generation (alpha, beta, gamma)."""

from __future__ import annotations

import numpy as np

import traceview
from support.v2bytes import (
    alpha_block,
    beta_block,
    gamma_block,
    header,
    method_info,
    summary,
    thread_info,
)
from traceview.model import Trace
from traceview.readers.v2 import read

A, B = 0x7A10_0000_1000, 0x7A10_0000_1040  # ArtMethod* values
INFOS = method_info(A, b"com.ex.Foo\trun\t()V\tFoo.java\n") + method_info(
    B, b"com.ex.Foo\tinner\t(I)J\tFoo.java\n"
)
OPTS_NS = {"data-file-overflow": "false", "clock": "dual", "elapsed-time-nsec": "1000000"}


def rows(trace: Trace) -> list[tuple[int, str, int, int | None, int | None]]:
    """(tid, class.method, action, cpu ns, wall ns) per event, in file order."""
    ev, out = trace.events, []
    for i in range(len(ev)):
        cpu = None if ev.cpu is None else int(ev.cpu[i])
        wall = None if ev.wall is None else int(ev.wall[i])
        tid = int(trace.threads.id[int(ev.thread[i])])
        out.append((tid, trace.methods.full_name(int(ev.method[i])), int(ev.action[i]), cpu, wall))
    return out


def codes(trace: Trace) -> list[str]:
    return [d.code for d in trace.diagnostics]


NESTED = [(A, 0, [100, 50]), (B, 0, [300, 120]), (B, 1, [500, 200]), (A, 1, [900, 400])]
EXPECTED = [
    (4242, "com.ex.Foo.run", 0, 50, 100),
    (4242, "com.ex.Foo.inner", 0, 120, 300),
    (4242, "com.ex.Foo.inner", 1, 200, 500),
    (4242, "com.ex.Foo.run", 1, 400, 900),
]


def test_beta_dual_streaming_ns() -> None:
    data = (
        header(0xF5, start=5_000_000_000)
        + INFOS
        + thread_info(4242, b"main")
        + beta_block(4242, NESTED)
        + summary({**OPTS_NS, "vm": "art", "pid": "77"}, 5)
    )
    trace = read(data, source="x.trace")
    trace.validate()
    assert rows(trace) == EXPECTED
    h = trace.header
    assert (h.variant, h.version, h.clock, h.entry_format) == ("v2-streaming", 0xF5, "dual", "beta")
    assert (h.key_version, h.vm, h.pid, h.elapsed_ns) == (5, "art", 77, 1_000_000)
    assert h.start_time_us == 5_000_000
    assert trace.threads.name == ("main",)
    assert trace.methods.id.dtype == np.uint64 and int(trace.methods.id[0]) == A
    assert trace.methods.signature[1] == "(I)J" and trace.methods.source_file[1] == "Foo.java"
    assert trace.diagnostics == []
    assert trace.source == "x.trace"


def test_beta_microseconds_before_2025() -> None:
    opts = {"clock": "dual", "elapsed-time-usec": "1000"}
    data = header(5, 123) + INFOS + thread_info(4242, b"main") + beta_block(4242, NESTED)
    trace = read(data + summary(opts, 5))
    trace.validate()
    assert [r[3:] for r in rows(trace)] == [(c * 1000, w * 1000) for *_, c, w in EXPECTED]
    assert trace.header.elapsed_ns == 1_000_000 and trace.header.variant == "v2"


def test_beta_single_clock_from_summary() -> None:
    recs = [(m, a, [t[1]]) for m, a, t in NESTED]  # cpu only
    opts = {"clock": "thread-cpu", "elapsed-time-nsec": "5"}
    data = header(0xF4) + INFOS + thread_info(9, b"w") + beta_block(9, recs) + summary(opts, 4)
    trace = read(data)
    trace.validate()
    assert trace.header.clock == "thread-cpu" and trace.events.wall is None
    assert trace.events.cpu is not None and trace.events.cpu.tolist() == [50, 120, 200, 400]


def test_alpha_u8_dual() -> None:
    recs = [(A, 0, 5, 10), (B, 0, 7, 30), (B, 1, 9, 31), (A, 1, 20, 60)]  # (id, action, cpu, wall)
    opts = {"clock": "dual", "elapsed-time-usec": "60"}
    data = header(5) + INFOS + thread_info(3, b"t") + alpha_block(3, recs) + summary(opts, 5)
    trace = read(data)
    trace.validate()
    assert trace.header.entry_format == "alpha"
    got = rows(trace)
    assert [g[1:3] for g in got] == [(e[1], e[2]) for e in EXPECTED]
    assert [(g[3], g[4]) for g in got] == [
        (5000, 10000),
        (7000, 30000),
        (9000, 31000),
        (20000, 60000),
    ]


def test_alpha_chained_method_deltas() -> None:
    recs = [(A, 0, 5, 10), (B, 0, 7, 30), (B, 1, 9, 31), (A, 1, 20, 60)]
    opts = {"clock": "dual", "elapsed-time-usec": "60"}
    block = alpha_block(3, recs, chained=True)
    trace = read(header(5) + INFOS + thread_info(3, b"t") + block + summary(opts, 5))
    trace.validate()
    assert [g[1:3] for g in rows(trace)] == [(e[1], e[2]) for e in EXPECTED]
    assert trace.methods.declared.all()


def test_alpha_u32_microseconds_unwrap_across_blocks() -> None:
    near = (1 << 32) - 10
    first = [(A, 0, 1, near), (B, 0, 2, near + 4)]  # wall passes 2^32 µs inside this block
    second = [(B, 1, 3, (1 << 32) + 20), (A, 1, 4, (1 << 32) + 30)]  # header: wrapped u32
    blocks = alpha_block(3, [(m, a, c, w % (1 << 32)) for m, a, c, w in first])
    blocks += alpha_block(3, [(m, a, c, w % (1 << 32)) for m, a, c, w in second])
    trace = read(header(5) + INFOS + thread_info(3, b"t") + blocks)
    trace.validate()
    assert trace.events.wall is not None
    assert (trace.events.wall // 1000).tolist() == [near, near + 4, (1 << 32) + 20, (1 << 32) + 30]
    assert "time-backwards" not in codes(trace)


def test_alpha_early_u4_index_ids() -> None:
    """The first V2 commits: u4 method infos holding a dense index, records index<<2|action."""
    infos = method_info(0, b"a.B\tc\t()V\tB.java\n", 4) + method_info(
        1, b"a.B\td\t()V\tB.java\n", 4
    )
    recs = [(0, 0, None, 1), (4, 0, None, 2), (4, 1, None, 3), (0, 1, None, 9)]
    data = header(0xF4) + infos + thread_info(8, b"t") + alpha_block(8, recs, id_width=4)
    trace = read(data + summary({"clock": "wall"}, 4))
    trace.validate()
    assert trace.header.entry_format == "alpha"
    assert [r[1:3] for r in rows(trace)] == [("a.B.c", 0), ("a.B.d", 0), ("a.B.d", 1), ("a.B.c", 1)]
    assert trace.methods.id.tolist() == [0, 4]
    assert trace.events.wall is not None and trace.events.wall.tolist() == [1000, 2000, 3000, 9000]


def test_gamma_ticks_and_exit_stack() -> None:
    recs = [(A, 0, 10, 1), (B, 0, 20, 2), (B, 1, 30, 3), (A, 2, 40, 4)]  # unroll pops A
    infos = INFOS + method_info(0x7A10_0000_2000, b"x.Y\tz\t()V\tY.java\t548\n")
    data = header(0xF5, start=1_000, tsc_start=0, tsc_freq=500_000_000)
    data += infos + thread_info(5, b"g") + gamma_block(5, recs) + summary(OPTS_NS, 5)
    trace = read(data)
    trace.validate()
    assert trace.header.entry_format == "gamma"
    got = rows(trace)
    assert [g[1:3] for g in got] == [
        ("com.ex.Foo.run", 0),
        ("com.ex.Foo.inner", 0),
        ("com.ex.Foo.inner", 1),
        ("com.ex.Foo.run", 2),
    ]
    assert [g[4] for g in got] == [20, 40, 60, 80]  # 2 ns per tick at 500 MHz
    assert [g[3] for g in got] == [1, 2, 3, 4]
    assert trace.methods.line.tolist()[2] == 548 and trace.methods.source_file[2] == "Y.java"


def test_infos_after_use_and_thread_rename() -> None:
    data = (
        header(0xF5)
        + thread_info(4242, b"old")
        + beta_block(4242, NESTED)
        + INFOS
        + thread_info(4242, b"new")
        + summary(OPTS_NS, 5)
    )
    trace = read(data)
    trace.validate()
    assert rows(trace) == EXPECTED
    assert trace.threads.name == ("new",)
    assert "thread-renamed" in codes(trace)


def test_unknown_thread_method_and_bad_utf8() -> None:
    infos = method_info(A, b"com.ex.\xff\xfeBad\trun\t()V\tFoo.java\n")
    data = header(0xF5) + infos + beta_block(77, NESTED) + summary(OPTS_NS, 5)
    trace = read(data)
    trace.validate()
    assert trace.threads.id.tolist() == [77] and trace.threads.name == (None,)
    assert trace.threads.label(0) == "[77]"
    assert trace.methods.declared.tolist() == [True, False]
    assert trace.methods.full_name(1) == f"(0x{B:x})"
    bad = trace.methods.class_name[0]
    assert bad.encode("utf-8", "surrogateescape") == b"com.ex.\xff\xfeBad"
    assert {"unknown-thread", "unknown-method", "bad-name-encoding"} <= set(codes(trace))


def test_several_blocks_per_thread_interleaved() -> None:
    first, second = NESTED[:2], NESTED[2:]
    data = header(0xF5) + INFOS + thread_info(1, b"a") + thread_info(2, b"b")
    data += beta_block(1, first) + beta_block(2, NESTED) + beta_block(1, second)
    trace = read(data + summary(OPTS_NS, 5))
    trace.validate()
    assert [r[0] for r in rows(trace)] == [1, 1, 2, 2, 2, 2, 1, 1]
    assert [r[4] for r in rows(trace) if r[0] == 1] == [100, 300, 500, 900]


def test_wall_unit_bug_is_repaired() -> None:
    recs = [(A, 0, [0, 0]), (A, 1, [2_000, 1_900_000]), (A, 0, [3_000, 2_900_000])]
    data = header(0xF5) + INFOS + thread_info(1, b"a") + beta_block(1, recs)
    trace = read(data + summary({"clock": "dual", "elapsed-time-nsec": "4000"}, 5))
    trace.validate()
    assert "wall-unit-bug" in codes(trace)
    assert trace.events.wall is not None and trace.events.wall.tolist() == [0, 2_000_000, 3_000_000]
    assert trace.header.elapsed_ns == 4_000_000


def test_overflow_flag_and_no_summary() -> None:
    data = header(0xF5) + INFOS + thread_info(1, b"a") + beta_block(1, NESTED)
    trace = read(data)
    trace.validate()
    assert "no-summary" in codes(trace) and len(trace.events) == 4
    over = read(data + summary({**OPTS_NS, "data-file-overflow": "true"}, 5))
    assert over.header.overflow and "data-file-overflow" in codes(over)


def test_backwards_time_is_clamped() -> None:
    recs = [(A, 0, [100, 10]), (B, 0, [50, 20]), (B, 1, [200, 30])]  # wall steps back
    data = header(0xF5) + INFOS + thread_info(1, b"a") + beta_block(1, recs)
    trace = read(data + summary(OPTS_NS, 5))
    trace.validate()
    assert trace.events.wall is not None and trace.events.wall.tolist() == [100, 100, 200]
    assert "time-backwards" in codes(trace)


def test_load_dispatches_v2() -> None:
    data = header(0xF5) + INFOS + thread_info(4242, b"main") + beta_block(4242, NESTED)
    trace = traceview.load(data + summary(OPTS_NS, 5))
    trace.validate()
    assert rows(trace) == EXPECTED and trace.header.entry_format == "beta"


def test_split_flush_continues_deltas() -> None:
    """One ART flush split in two blocks keeps its previous values (ART16 streaming)."""
    data = header(0xF5) + INFOS + thread_info(1, b"a")
    second = bytearray(beta_block(1, NESTED[2:], after=NESTED[1]))
    second[5] = 4  # ART counts the records of the whole flush so far: 2 + 2
    data += beta_block(1, NESTED[:2]) + bytes(second)
    trace = read(data + summary(OPTS_NS, 5))
    trace.validate()
    assert [r[1:] for r in rows(trace)] == [e[1:] for e in EXPECTED]
    assert codes(trace) == ["continued-blocks"]


def test_earliest_file_mode_summary_first() -> None:
    """Early 2024 V2 file mode: summary text first, then the SLOW header and the blocks."""
    text = b"*version\n5\ndata-file-overflow=false\nclock=dual\nelapsed-time-usec=9\n*end\n"
    recs = [(0, 0, 5, 10), (0, 1, 7, 30)]  # index-0 method, no method info in this mode
    trace = read(text + header(5) + alpha_block(3, recs, id_width=4))
    trace.validate()
    assert trace.header.key_version == 5 and trace.header.elapsed_ns == 9000
    assert trace.header.entry_format == "alpha" and len(trace.events) == 2
    assert trace.methods.declared.tolist() == [False]
    assert {"unknown-method", "unknown-thread"} <= set(codes(trace))


def test_earliest_file_mode_through_load() -> None:
    """`traceview.load` routes summary-first V2 files to the V2 reader, not the V1 one."""
    text = b"*version\n5\nclock=dual\nelapsed-time-usec=9\n*end\n"
    recs = [(0, 0, 5, 10), (0, 1, 7, 30)]
    trace = traceview.load(text + header(5) + alpha_block(3, recs, id_width=4))
    trace.validate()
    assert trace.header.variant == "v2" and len(trace.events) == 2
