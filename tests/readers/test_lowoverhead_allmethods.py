"""Android 16 low-overhead dumps in the all-methods mode (ART's `DumpBuffer`): no times, one
SLEB128 per event, the u4 size of 12-byte block headers never written. Read with the order of
events as the axis; checked against a plain-Python oracle of ART's encoding, a formula for
ART's ring (wrapping), round trips, garbage size fields, cuts and hostile counts."""

from __future__ import annotations

import struct
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support.lowoverhead_oracle import (
    all_methods_block,
    dump_buffer,
    method_info,
    thread_info,
    undump_buffer,
)
from support.v2bytes import sleb
from traceview.model import Trace, TraceError, TraceFormatError
from traceview.readers import load
from traceview.readers.lowoverhead import UNKNOWN_METHOD, sniff
from traceview.synth import generate
from traceview.writer.lowoverhead import dump_bytes
from traceview.writer.lowoverhead.art import ArtRun, Method
from traceview.writer.lowoverhead.eras import ERAS

RUN, WORK, IDLE = 0x7F00_1000, 0x7F00_0F80, 0x6E00_0040


def infos(*ptrs: int) -> bytes:
    return b"".join(method_info(p, f"a.B\tm{p:x}\t()V\tB.java\n") for p in ptrs)


def per_thread(trace: Trace) -> list[list[tuple[int, str]]]:
    """Each thread's (action, method label) sequence."""
    ev, me = trace.events, trace.methods
    return [
        [
            (int(a), me.label(int(m)))
            for a, m in zip(ev.action[ev.thread == row], ev.method[ev.thread == row], strict=True)
        ]
        for row in range(len(trace.threads))
    ]


def test_hand_made_dump_reads_with_the_order_of_events() -> None:
    words = [RUN, WORK, 1, WORK, 1, 1, IDLE]  # run { work {} work {} } idle {
    data = all_methods_block(42, words) + thread_info(42, "main") + infos(RUN, WORK, IDLE)
    assert sniff(data)
    trace = load(data)
    trace.validate()
    head = trace.header
    assert head.variant == "low-overhead" and head.axis == "order" and head.entry_format == "all"
    assert head.options["mode"] == "all-methods" and head.options["time-unit"] == "none"
    assert head.start_time_us is None and head.elapsed_ns is None
    assert trace.threads.name == ("main",)
    # the axis: calls entered before each event (a call spans its subtree's calls)
    assert trace.events.wall is not None and trace.events.wall.tolist() == [0, 1, 2, 2, 3, 3, 3]
    assert trace.events.action.tolist() == [0, 0, 1, 0, 1, 1, 0]
    names = [trace.methods.name[int(m)] for m in trace.events.method]
    assert names == [
        "m7f001000",
        "m7f000f80",
        "m7f000f80",
        "m7f000f80",
        "m7f000f80",
        "m7f001000",
        "m6e000040",
    ]
    assert [d.code for d in trace.diagnostics] == ["no-times"]
    assert "order of events" in trace.diagnostics[0].message


@st.composite
def threads_of_words(draw: st.DrawFn) -> list[tuple[int, list[int]]]:
    """Threads of ring words: 8-aligned pointers on entry, 1 on exit (any order: rings splice)."""
    ptrs = draw(st.lists(st.integers(2, 2**45).map(lambda x: x * 8), min_size=1, max_size=6))
    word = st.one_of(st.just(1), st.sampled_from(ptrs))
    tids = draw(st.lists(st.integers(1, 2**32 - 1), min_size=1, max_size=4, unique=True))
    return [(tid, draw(st.lists(word, min_size=1, max_size=60))) for tid in tids]


@settings(max_examples=80, deadline=None)
@given(threads_of_words(), st.sampled_from([8, 12]), st.binary(min_size=4, max_size=4))
def test_decoder_matches_the_oracle(
    threads: list[tuple[int, list[int]]], header: int, junk: bytes
) -> None:
    """The reader's (exit, method) per event equals the plain-Python decoding of ART's
    deltas, for either header size and any unwritten size bytes."""
    ptrs = sorted({w for _, words in threads for w in words if w != 1})
    blocks = b"".join(all_methods_block(tid, words, header, junk) for tid, words in threads)
    trailer = "\n*threads\n*methods\n" + "".join(
        f"{p:#x}\ta.B\tm{p:x}\t()V\tB.java\n" for p in ptrs
    )
    tail = (trailer + "*end").encode() if header == 8 else infos(*ptrs)
    trace = load(blocks + tail)
    trace.validate()
    assert trace.header.options["layout"].startswith(f"{header}-byte")
    ev = trace.events
    for row, (_, words) in enumerate(threads):
        mine = ev.thread == row
        want = undump_buffer(dump_buffer(words))
        assert ev.action[mine].tolist() == [int(x) for x, _ in want]
        got = [trace.methods.id[int(m)] for m in ev.method[mine]]
        assert [int(g) for g, (x, _) in zip(got, want, strict=True) if not x] == [
            p for x, p in want if not x
        ]
        entered = [sum(w != 1 for w in words[:k]) for k in range(len(words))]
        assert ev.wall is not None and ev.wall[mine].tolist() == entered


def test_round_trip_from_a_trace() -> None:
    source = generate(3000, threads=3, seed=5, clock="wall", balanced=True)
    data = dump_bytes(source, block_events=250, mode="all")
    assert data[8:12] == bytes(4) and sniff(data)
    trace = load(data)
    trace.validate()
    assert trace.header.axis == "order"
    assert per_thread(trace) == per_thread(source)
    assert trace.threads.name == source.threads.name
    assert dump_bytes(trace, block_events=250, mode="all") == data


@pytest.mark.parametrize(
    "junk", [b"\xde\xad\xbe\xef", b"\xff\xff\xff\xff", b"\x01\x02\x03\x04", b"\x80\x80\x80\x80"]
)
def test_unwritten_size_bytes(junk: bytes) -> None:
    """ART writes the block into a fresh heap buffer: the size bytes hold whatever was there."""
    source = generate(400, threads=2, seed=2, clock="wall", balanced=True)
    plain = load(dump_bytes(source, mode="all"))
    got = load(dump_bytes(source, mode="all", size_fill=junk))
    got.validate()
    assert per_thread(got) == per_thread(plain)


def test_an_empty_first_block_with_unwritten_size() -> None:
    body = all_methods_block(7, [RUN, 1]) + infos(RUN)
    empty = struct.pack("<BI", 2, 77) + bytes(3) + b"\x12\x34\x56\x78"
    got = load(empty + body)
    got.validate()
    assert got.threads.id.tolist() == [77, 7] and len(got.events) == 2


def _ring_oracle(words: list[int]) -> list[int]:
    """What ART's dump reads from a ring after `words` were recorded, from a formula: write k
    lands in slot 2047 - k for k <= 2048 (slot -1: out of bounds, lost), then, lap after lap,
    in 2046 - ((k - 2049) mod 2048); the dump reads slots 2047..1 up to the first 0."""
    slots = [0] * 2048
    for k, word in enumerate(words):
        slot = 2047 - k if k <= 2048 else 2046 - ((k - 2049) % 2048)
        if slot >= 0:
            slots[slot] = word
    out = []
    for slot in range(2047, 0, -1):
        if slots[slot] == 0:
            break
        out.append(slots[slot])
    return out


@pytest.mark.parametrize("events", [5, 2047, 2048, 2049, 3000, 4097, 9001])
def test_the_ring_wraps_as_art_writes_it(events: int) -> None:
    methods = [Method(0x7000_0000 + 16 * i, "a.C", f"m{i}") for i in range(5)]
    run, words, depth = ArtRun(mode="all", era=ERAS["newest"]), [], 0
    rng = np.random.default_rng(events)
    for _ in range(events):
        if depth and rng.random() < 0.5:
            run.exit(9, 0)
            words.append(1)
            depth -= 1
        else:
            m = methods[int(rng.integers(5))]
            run.enter(9, m, 0)
            words.append(m.ptr)
            depth += 1
    trace = load(run.dump(0))
    trace.validate()
    want = _ring_oracle(words)
    ev = trace.events
    assert ev.action.tolist() == [int(w == 1) for w in want]
    entries = [
        int(trace.methods.id[int(m)]) for m, a in zip(ev.method, ev.action, strict=True) if not a
    ]
    assert entries == [w for w in want if w != 1]
    codes = {d.code: d for d in trace.diagnostics}
    assert ("ring-wrapped" in codes) == (len(want) == 2047)
    if events > 2048:
        assert codes["ring-wrapped"].count == 1
        unmatched = codes["exit-without-entry"].count
        assert unmatched is not None
        assert unmatched >= 1 or want[1] != 1  # unmatched at a seam
        if want[0] != 1 and want[1] == 1:  # the oldest slot is paired apart: not closed there
            first_exit_label = trace.methods.label(int(ev.method[1]))
            assert first_exit_label == UNKNOWN_METHOD


def test_every_cut_gives_a_trace_or_one_line() -> None:
    source = generate(60, threads=2, seed=3, clock="wall", balanced=True)
    data = dump_bytes(source, block_events=7, mode="all")
    full = load(data)
    for cut in range(1, len(data)):
        try:
            got = load(data[:cut])
        except TraceError as exc:
            assert "\n" not in str(exc)
            continue
        got.validate()
        assert len(got.events) <= len(full.events)
        assert len(got.diagnostics) > 1, cut  # the cut is said, beside no-times


def test_the_first_layout_of_2024_is_refused_in_one_line() -> None:
    """July-September 2024: 8-byte headers, the delta to the previous word whatever it was,
    exits carrying their method (word | 1), no infos."""
    words = [RUN, WORK, WORK | 1, RUN | 1, RUN, RUN | 1]
    payload = b"".join(sleb(w - p) for w, p in zip(words, [0, *words[:-1]], strict=True))
    data = struct.pack("<BI", 2, 5) + len(words).to_bytes(3, "little") + payload
    with pytest.raises(TraceFormatError, match="first layout") as caught:
        load(data)
    assert "\n" not in str(caught.value)


def test_billions_of_declared_events_allocate_nothing_by_the_count() -> None:
    """Blocks claiming 2^24 - 1 events each (billions in all) over a few bytes each."""
    block = (
        struct.pack("<BI", 2, 1)
        + (2**24 - 1).to_bytes(3, "little")
        + bytes(4)
        + sleb(RUN)
        + b"\x01"
    )
    data = block * 300 + infos(RUN)
    tracemalloc.start()
    try:
        trace = load(data)
        trace.validate()
        peak = tracemalloc.get_traced_memory()[1]
    except TraceError as exc:
        peak = tracemalloc.get_traced_memory()[1]
        assert "\n" not in str(exc)
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20
