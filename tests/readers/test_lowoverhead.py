"""Android 16 low-overhead (long-running methods) dumps: hand-made bytes, write -> read round
trips (hypothesis), damage, and every view of the session. Hand-made dumps end with the
newest ART's summary packet, which says their (short) times are ns."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from support.lowoverhead_oracle import method_info, summary, timed_block
from traceview.analysis import Session
from traceview.model import Trace, TraceFormatError
from traceview.readers import load
from traceview.readers.lowoverhead import UNKNOWN_METHOD, sniff
from traceview.synth import generate
from traceview.writer import write
from traceview.writer.lowoverhead import dump_bytes


def block(tid: int, events: list[tuple[int, bool, int]]) -> bytes:
    """An entry block of (time_ns, is_exit, method) events, deltas restarting at 0."""
    return timed_block(tid, events)


SUMMARY = summary(10**10, 10**10 + 777)


RUN, WORK = 0x7F00_1000, 0x7F00_0F80  # the second pointer is lower: a negative delta
INFOS = method_info(RUN, "com.app.Main\trun\t()V\tMain.java\n") + method_info(
    WORK, "com.app.Main\twork\t(I)V\tMain.java\n"
)


def test_hand_made_dump() -> None:
    data = (
        block(42, [(5_000_000_000, False, RUN), (5_010_000_000, False, WORK)])
        + block(42, [(5_050_000_000, True, 0), (5_090_000_000, True, 0)])
        + SUMMARY
        + INFOS
    )
    assert sniff(data)
    trace = load(data)
    trace.validate()
    assert trace.header.variant == "low-overhead" and trace.clocks == ("wall",)
    assert list(trace.threads.id) == [42] and trace.threads.name == (None,)
    labels = [trace.methods.label(int(m)) for m in trace.events.method]
    assert labels == ["com.app.Main.run ()V", "com.app.Main.work (I)V"] * 1 + [
        "com.app.Main.work (I)V",
        "com.app.Main.run ()V",
    ]
    assert list(trace.events.action) == [0, 0, 1, 1]
    assert trace.events.wall is not None
    assert list(trace.events.wall) == [0, 10_000_000, 50_000_000, 90_000_000]
    assert trace.header.start_time_us == 5_000_000
    assert trace.header.axis == "time" and trace.header.options["time-unit"] == "ns"
    assert trace.header.end_ns == 10**10 - 5_000_000_000
    assert trace.header.monotonic_offset_ns == 5_000_000_000 + 777
    codes = [d.code for d in trace.diagnostics]
    assert codes == ["long-running-methods-only"]
    assert "only calls that ran for at least" in trace.diagnostics[0].message


def test_exits_without_entries_and_blocks_out_of_order() -> None:
    """The last blocks of a dump to a file come before the flushed ones; deep stacks are cut,
    so a thread's first exits may close calls the dump never entered."""
    late = block(7, [(3_000, False, WORK), (4_000, True, 0), (9_000, True, 0)])
    early = block(7, [(1_000, True, 0), (2_000, False, RUN), (2_500, True, 0)])
    trace = load(late + early + SUMMARY + INFOS)
    trace.validate()
    me = trace.methods
    labels = [me.label(int(m)) for m in trace.events.method]
    assert labels == [
        UNKNOWN_METHOD,
        "com.app.Main.run ()V",
        "com.app.Main.run ()V",
        "com.app.Main.work (I)V",
        "com.app.Main.work (I)V",
        UNKNOWN_METHOD,
    ]
    assert trace.events.wall is not None
    assert list(trace.events.wall) == [0, 1_000, 1_500, 2_000, 3_000, 8_000]
    orphans = [d for d in trace.diagnostics if d.code == "exit-without-entry"]
    assert orphans and orphans[0].count == 2
    session = Session(trace)
    prof = session.profile(session.query())
    run = int(np.flatnonzero(np.array(me.name) == "run")[0])
    assert int(prof.incl["wall"][run]) == 500


def test_thread_infos_name_threads() -> None:
    name = b"RenderThread"
    info = struct.pack("<BIH", 0, 42, len(name)) + name
    trace = load(block(42, [(10, False, RUN)]) + INFOS + info + SUMMARY)
    assert trace.threads.name == ("RenderThread",)


def test_undeclared_methods_get_rows() -> None:
    trace = load(block(1, [(10, False, 0x1234), (20, True, 0)]))
    assert trace.methods.label(int(trace.events.method[0])) == "(0x1234)"
    assert "unknown-method" in [d.code for d in trace.diagnostics]


def test_nothing_readable() -> None:
    with pytest.raises(TraceFormatError):
        load(bytes([2]) + bytes(3))
    header_only = b"\x02\x01\x00\x00\x00\x03\x00\x00\x10\x00\x00\x00"
    with pytest.raises(TraceFormatError, match="Android 16 low-overhead dump holds no complete"):
        load(header_only)


@st.composite
def dumps(draw: st.DrawFn) -> tuple[list[tuple[int, list[tuple[int, bool, int]]]], int]:
    """Threads of nested calls (some exits first: entered before the dump), ptr-like ids."""
    ptrs = draw(
        st.lists(st.integers(1, 2**48), min_size=1, max_size=6, unique=True).map(
            lambda xs: [x * 8 for x in xs]
        )
    )
    threads = []
    for tid in draw(st.lists(st.integers(1, 2**31 - 1), min_size=1, max_size=4, unique=True)):
        t, depth, events = draw(st.integers(0, 2**40)), 0, []
        orphans = draw(st.integers(0, 3))
        for _ in range(orphans):
            t += draw(st.integers(0, 10**9))
            events.append((t, True, 0))
        for op in draw(st.lists(st.booleans(), max_size=40)):
            t += draw(st.integers(0, 10**9))
            if op or depth == 0:
                events.append((t, False, draw(st.sampled_from(ptrs))))
                depth += 1
            else:
                events.append((t, True, 0))
                depth -= 1
        threads.append((tid, events))
    return threads, draw(st.integers(1, 7))


def build(threads: list[tuple[int, list[tuple[int, bool, int]]]], per_block: int) -> bytes:
    out = b""
    ptrs = sorted({m for _, evs in threads for _, x, m in evs if not x})
    for tid, events in threads:
        for at in range(0, len(events), per_block):
            out += block(tid, events[at : at + per_block])
    infos = b"".join(method_info(p, f"c{p}\tm\t()V\t\n") for p in ptrs)
    return out + SUMMARY + infos


@settings(max_examples=60, deadline=None)
@given(dumps())
def test_read_matches_what_was_written(
    case: tuple[list[tuple[int, list[tuple[int, bool, int]]]], int],
) -> None:
    threads, per_block = case
    threads = [(tid, evs) for tid, evs in threads if evs]
    if not threads:
        return
    trace = load(build(threads, per_block))
    trace.validate()
    origin = min(t for _, evs in threads for t, _, _ in evs)
    assert list(trace.threads.id) == [tid for tid, _ in threads]
    for row, (_, events) in enumerate(threads):
        mine = trace.events.thread == row
        assert trace.events.wall is not None
        assert list(trace.events.wall[mine]) == [t - origin for t, _, _ in events]
        assert list(trace.events.action[mine]) == [int(x) for _, x, _ in events]
        names: list[str] = []
        stack: list[int] = []
        for _, is_exit, m in events:
            if is_exit:
                names.append(f"c{stack.pop()}.m ()V" if stack else UNKNOWN_METHOD)
            else:
                stack.append(m)
                names.append(f"c{m}.m ()V")
        got = [trace.methods.label(int(m)) for m in trace.events.method[mine]]
        assert got == names
    # and the writer writes what the reader reads
    again = load(dump_bytes(trace, block_events=per_block))
    assert again.events.wall is not None and trace.events.wall is not None
    assert np.array_equal(again.events.wall, trace.events.wall)
    assert np.array_equal(again.events.action, trace.events.action)
    assert [again.methods.label(int(m)) for m in again.events.method] == [
        trace.methods.label(int(m)) for m in trace.events.method
    ]


@pytest.fixture(scope="module")
def generated() -> tuple[Trace, bytes]:
    trace = generate(4000, threads=3, seed=11, clock="wall", balanced=True)
    return trace, dump_bytes(trace, block_events=300, thread_names=True)


def test_generated_round_trip_and_every_view(generated: tuple[Trace, bytes]) -> None:
    source, data = generated
    trace = load(data)
    trace.validate()
    assert trace.threads.name == source.threads.name
    session = Session(trace)
    q = session.query()
    prof = session.profile(q)
    original = Session(source)
    want = original.profile(original.query())
    assert int(prof.thread_total["wall"].sum()) == int(want.thread_total["wall"].sum())
    assert session.top_down(q) is not None and session.bottom_up(q) is not None
    for kind in ("graph", "topdown", "bottomup"):
        assert len(session.flame(q, kind).x) > 0
    assert session.timeline() is not None
    assert session.diagnostics()[0].code == "long-running-methods-only"
    again = dump_bytes(trace, block_events=300, thread_names=True)
    assert again == data


def test_writer_variant(generated: tuple[Trace, bytes], tmp_path: Path) -> None:
    source, _ = generated
    path = tmp_path / "dump.bin"
    write(source, path, variant="low-overhead")
    assert load(path).header.variant == "low-overhead"


def test_truncation_gives_diagnostics(generated: tuple[Trace, bytes]) -> None:
    _, data = generated
    first_info = data.index(b"\x01", len(data) // 2)  # somewhere in the blocks or infos
    for cut in sorted({12, 13, 50, len(data) // 3, len(data) // 2, first_info, len(data) - 3}):
        try:
            trace = load(data[:cut])
        except TraceFormatError:
            continue
        trace.validate()
        codes = {d.code for d in trace.diagnostics}
        assert codes & {"truncated-block", "truncated-record", "unknown-method"}, (cut, codes)


def test_every_cut_of_a_small_dump() -> None:
    data = (
        block(3, [(100, False, RUN), (200, False, WORK), (300, True, 0)])
        + block(3, [(400, True, 0)])
        + SUMMARY
        + INFOS
    )
    for cut in range(len(data)):
        try:
            trace = load(data[:cut])
        except TraceFormatError:
            continue
        trace.validate()
        assert trace.diagnostics[0].code == "long-running-methods-only"
        assert len(trace.diagnostics) > 1, cut  # the cut is always said


def test_commands_read_a_dump(
    generated: tuple[Trace, bytes], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from traceview.cli import main as cli_main

    path = tmp_path / "dump.bin"
    path.write_bytes(generated[1])
    for argv in (["info"], ["info", "--json"], ["stats", "--json"], ["tree"], ["-r"]):
        assert cli_main([argv[0], str(path), *argv[1:]]) == 0
    out = capsys.readouterr().out
    assert '"code": "long-running-methods-only"' in out and '"variant": "low-overhead"' in out
    assert "variant     low-overhead (long-running methods dump)" in out


def test_empty_blocks_first() -> None:
    """A thread with nothing long running dumps an empty block (n = 0, size 0)."""
    empty = struct.pack("<BI", 2, 9) + bytes(3) + struct.pack("<I", 0)
    data = empty + empty + block(42, [(10, False, RUN), (30, True, 0)]) + SUMMARY + INFOS
    assert sniff(data)
    trace = load(data)
    trace.validate()
    assert list(trace.threads.id) == [9, 42] and len(trace.events) == 2


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.integers(1, 30))
@example(b"\x01\x01\x7f", 2)  # a method id of 2^64 - 1 and an orphan exit
def test_any_bytes_after_a_plausible_header(tail: bytes, n: int) -> None:
    """Hostile input: a trace that validates, or one TraceError line; never anything else."""
    from traceview.model import TraceError

    data = struct.pack("<BI", 2, 5) + n.to_bytes(3, "little") + struct.pack("<I", 2 * n) + tail
    try:
        trace = load(data)
    except TraceError as exc:
        assert "\n" not in str(exc)
        return
    trace.validate()
