"""Android 16 low-overhead dumps in the all-methods mode (ART's `DumpBuffer`): the u4 size field
of every entry block is left unwritten, so the reader finds each block's end by decoding its
events. Round trips in both modes, garbage size fields, cuts, and the commands."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support.v2bytes import sleb
from traceview.model import Trace, TraceError, TraceFormatError
from traceview.readers import load
from traceview.readers.lowoverhead import sniff
from traceview.synth import generate
from traceview.writer.lowoverhead import dump_bytes

BLOCK_HEADER = 12


def sizes_replaced(data: bytes, lengths: dict[int, int], sizes: list[int]) -> bytes:
    """`data` (all-methods, sizes 0) with its blocks' size fields set to `sizes` in turn
    (`lengths`: block offset -> payload length, from a long-running copy of the same dump)."""
    out = bytearray(data)
    for k, pos in enumerate(sorted(lengths)):
        out[pos + 8 : pos + 12] = struct.pack("<I", sizes[k % len(sizes)] & 0xFFFFFFFF)
    return bytes(out)


def block_offsets(long_running: bytes) -> dict[int, int]:
    """Block offset -> payload length, from a long-running dump (same bytes but the sizes)."""
    out, pos = {}, 0
    while pos < len(long_running) and long_running[pos] == 2:
        (length,) = struct.unpack_from("<I", long_running, pos + 8)
        out[pos] = length
        pos += BLOCK_HEADER + length
    return out


def events_of(trace: Trace) -> tuple[list[int], list[int], list[str]]:
    ev = trace.events
    assert ev.wall is not None
    labels = [trace.methods.label(int(m)) for m in ev.method]
    return ev.wall.tolist(), ev.action.tolist(), labels


@pytest.fixture(scope="module")
def generated() -> tuple[Trace, bytes, bytes]:
    trace = generate(3000, threads=3, seed=5, clock="wall", balanced=True)
    every = dump_bytes(trace, block_events=250, mode="all")
    long_running = dump_bytes(trace, block_events=250, mode="long-running")
    return trace, every, long_running


def test_all_methods_dump_reads_like_the_long_running_one(
    generated: tuple[Trace, bytes, bytes],
) -> None:
    source, every, long_running = generated
    assert every[8:12] == bytes(4) and sniff(every)
    trace = load(every)
    trace.validate()
    assert trace.header.options["mode"] == "all-methods"
    assert trace.header.entry_format == "all"
    assert [d.code for d in trace.diagnostics] == []  # every call is there: nothing to warn of
    ref = load(long_running)
    assert ref.header.options["mode"] == "long-running-methods"
    assert ref.diagnostics[0].code == "long-running-methods-only"
    assert events_of(trace) == events_of(ref)
    assert trace.threads.name == source.threads.name  # thread infos are written in this mode
    assert ref.threads.name == (None,) * len(ref.threads)


@pytest.mark.parametrize(
    "sizes",
    [
        [0xDEADBEEF],
        [0xFFFFFFFF, 0, 7],
        [1, 2, 3, 4, 5],  # small, plausible-looking garbage
        [0xEEEEEEEE, 12, 0x7FFF_FFFF],
    ],
)
def test_garbage_size_fields(generated: tuple[Trace, bytes, bytes], sizes: list[int]) -> None:
    """ART writes the block from a fresh heap buffer: the size bytes hold whatever was there."""
    _, every, long_running = generated
    data = sizes_replaced(every, block_offsets(long_running), sizes)
    assert data != every
    trace = load(data)
    trace.validate()
    assert trace.header.options["mode"] == "all-methods"
    assert events_of(trace) == events_of(load(every))


def test_an_empty_first_block_with_a_garbage_size() -> None:
    """A thread with no events still gets a header (n = 0) whose size is garbage."""
    trace = generate(200, threads=1, seed=2, clock="wall", balanced=True)
    body = dump_bytes(trace, mode="all")
    empty = struct.pack("<BI", 2, 77) + bytes(3) + struct.pack("<I", 0x1234_5678)
    got = load(empty + body)
    got.validate()
    assert got.header.options["mode"] == "all-methods"
    assert 77 in got.threads.id.tolist() and len(got.events) == len(load(body).events)


def test_truncated_all_methods_dump(generated: tuple[Trace, bytes, bytes]) -> None:
    """Every cut gives a trace that validates and says it was cut, or one error line."""
    _, every, _ = generated
    first_info = every.index(b"\x00", len(every) // 2)
    for cut in sorted({12, 13, 20, 200, len(every) // 3, len(every) // 2, first_info}):
        try:
            trace = load(every[:cut])
        except TraceError as exc:
            assert "\n" not in str(exc)
            continue
        trace.validate()
        codes = {d.code for d in trace.diagnostics}
        assert "long-running-methods-only" not in codes
        assert codes & {"truncated-block", "truncated-record", "unknown-method"}, (cut, codes)


def test_every_cut_of_a_small_all_methods_dump() -> None:
    trace = generate(60, threads=2, seed=3, clock="wall", balanced=True)
    data = dump_bytes(trace, block_events=7, mode="all")
    full = load(data)
    for cut in range(1, len(data)):
        try:
            got = load(data[:cut])
        except TraceError as exc:
            assert "\n" not in str(exc)
            continue
        got.validate()
        assert len(got.events) <= len(full.events)
        assert got.diagnostics, cut  # the cut is always said


def test_commands_read_an_all_methods_dump(
    generated: tuple[Trace, bytes, bytes], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from traceview.cli import main as cli_main

    path = tmp_path / "dump.bin"
    path.write_bytes(generated[1])
    for argv in (["info"], ["info", "--json"], ["stats"], ["stats", "--json"], ["tree"]):
        assert cli_main([argv[0], str(path), *argv[1:]]) == 0
    out = capsys.readouterr().out
    assert "variant     low-overhead (all methods dump)" in out
    assert "long-running-methods-only" not in out and '"variant": "low-overhead"' in out


def test_writer_mode_is_checked() -> None:
    trace = generate(20, threads=1, seed=1, clock="wall", balanced=True)
    with pytest.raises(ValueError, match="mode"):
        dump_bytes(trace, mode="sampled")


@st.composite
def traces(draw: st.DrawFn) -> tuple[Trace, int]:
    records = draw(st.integers(2, 400))
    threads = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 10_000))
    balanced = draw(st.booleans())
    trace = generate(records, threads=threads, seed=seed, clock="wall", balanced=balanced)
    return trace, draw(st.integers(1, 50))


@settings(max_examples=40, deadline=None)
@given(traces(), st.sampled_from(["all", "long-running"]))
def test_round_trip_in_both_modes(case: tuple[Trace, int], mode: str) -> None:
    """write -> read -> write -> read -> write settles on the same bytes; the events read are
    the same in both modes, and the mode is told apart by the bytes alone."""
    source, per_block = case
    data = dump_bytes(source, block_events=per_block, mode=mode)
    try:
        trace = load(data)
    except TraceFormatError:
        assert len(source.events) == 0
        return
    trace.validate()
    want = "all-methods" if mode == "all" else "long-running-methods"
    assert trace.header.options["mode"] == want
    again = dump_bytes(trace, block_events=per_block, mode=mode)  # threads in the order read
    assert events_of(load(again)) == events_of(trace)
    if "exit-without-entry" not in {d.code for d in trace.diagnostics}:  # else a row is added
        assert dump_bytes(load(again), block_events=per_block, mode=mode) == again
    other = load(dump_bytes(source, block_events=per_block, mode="long-running"))
    assert events_of(trace) == events_of(other)
    assert np.array_equal(trace.events.thread, other.events.thread)


def test_timeless_all_methods_dump_is_refused_in_one_line() -> None:
    """ART's stored `DumpBuffer` writes one SLEB128 delta of `ArtMethod* | action` per event
    (exits as 1 after an entry, 0 after an exit) and no time: said, not misread."""
    run, work = 0x7F00_1000, 0x7F00_2000
    events = [run, work - run, 1, 0, work - (run | 1), 1, 0]  # enter, enter, exit, exit, ...
    payload = b"".join(sleb(v) for v in events)
    head = struct.pack("<BI", 2, 42) + len(events).to_bytes(3, "little") + b"\xab\xcd\xef\x01"
    name = b"main"
    infos = struct.pack("<BIH", 0, 42, len(name)) + name
    for ptr, text in ((run, b"a.B\trun\t()V\tB.java\n"), (work, b"a.B\twork\t()V\tB.java\n")):
        infos += struct.pack("<BQH", 1, ptr, len(text)) + text
    with pytest.raises(TraceFormatError, match="without timestamps") as caught:
        load(head + payload + infos)
    assert "\n" not in str(caught.value)
