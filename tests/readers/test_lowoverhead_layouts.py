"""Every layout of ART's low-overhead dump history (format.md §1.8), written by a simulation of
ART's own recording (`writer/lowoverhead/art.py`): each is detected from the bytes or refused
in one line naming it; the long-running filter matches a plain-Python oracle of ART's rule;
times come out in ns whatever unit the era wrote."""

from __future__ import annotations

import numpy as np
import pytest

from traceview.model import Trace, TraceFormatError
from traceview.readers import load
from traceview.writer.lowoverhead.art import ArtRun, Method
from traceview.writer.lowoverhead.eras import ERAS

HZ = 24_576_000
METHODS = [Method(0x7000_0000 + 16 * i, "com.app.C", f"m{i}") for i in range(8)]
Events = list[tuple[int, int, int | None]]  # (tick, tid, method ptr or None for an exit)


def scripted(seed: int, n: int = 600, depth_cap: int = 30) -> Events:
    """Two threads of nested calls lasting 0.1 ms to 2 s (some kept, most not)."""
    rng = np.random.default_rng(seed)
    tick, depth = 10**11, {1: 0, 2: 0}
    out: Events = []
    for _ in range(n):
        tid = int(rng.integers(1, 3))
        tick += int(rng.choice([HZ // 10_000, HZ // 100, HZ // 3, 2 * HZ]))
        if depth[tid] and (rng.random() < 0.5 or depth[tid] >= depth_cap):
            out.append((tick, tid, None))
            depth[tid] -= 1
        else:
            out.append((tick, tid, METHODS[int(rng.integers(len(METHODS)))].ptr))
            depth[tid] += 1
    return out


def record(events: Events, mode: str, era: str, to: str = "file") -> bytes:
    run = ArtRun(mode=mode, era=ERAS[era], counter_hz=HZ)
    by_ptr = {m.ptr: m for m in METHODS}
    for tid in (1, 2):
        run.start(tid, f"t{tid}", [METHODS[0]], events[0][0])
    for tick, tid, ptr in events:
        if ptr is None:
            run.exit(tid, tick)
        else:
            run.enter(tid, by_ptr[ptr], tick)
    return run.dump(events[-1][0] + 7, to=to)


def kept(events: Events, threshold: int) -> dict[int, list[tuple[int, int | None]]]:
    """ART's long-running rule on an unbounded list, per thread: the on-stack frame entered at
    the start; an exit right after its own entry erases both when the call was shorter than
    `threshold` ticks, else every exit is kept."""
    out: dict[int, list[tuple[int, int | None]]] = {1: [], 2: []}
    for tid in out:
        out[tid].append((events[0][0], METHODS[0].ptr))
    placeholder = {1: True, 2: True}
    for tick, tid, ptr in events:
        mine = out[tid]
        if ptr is not None:
            mine.append((tick, ptr))
            placeholder[tid] = False
        elif (
            mine
            and mine[-1][1] is not None
            and not placeholder[tid]
            and tick - mine[-1][0] < threshold
        ):
            mine.pop()
        else:
            mine.append((tick, None))
            placeholder[tid] = False
    return out


def sequences(trace: Trace) -> dict[int, list[tuple[int, int | None]]]:
    """Per thread id, (wall, method id or None for exits)."""
    ev = trace.events
    assert ev.wall is not None
    out: dict[int, list[tuple[int, int | None]]] = {}
    for row, tid in enumerate(trace.threads.id.tolist()):
        mine = ev.thread == row
        ids = trace.methods.id[ev.method[mine]]
        out[tid] = [
            (int(w), None if a else int(i))
            for w, a, i in zip(ev.wall[mine], ev.action[mine], ids, strict=True)
        ]
    return out


LONG_RUNNING = [
    ("2025-02-25", "12-byte block headers, a text trailer", "ticks"),
    ("2025-02-26", "12-byte block headers, binary infos", "ticks"),
    ("2025-03-04", "12-byte block headers, binary infos", "us"),
    ("2025-03-14", "12-byte block headers, binary infos", "us"),
    ("2025-06-11", "12-byte block headers, binary infos", "ns"),
    ("newest", "12-byte block headers, binary infos", "ns"),
]


@pytest.mark.parametrize(("era", "layout", "unit"), LONG_RUNNING)
def test_long_running_eras(era: str, layout: str, unit: str) -> None:
    events = scripted(1)
    trace = load(record(events, "long-running", era))
    trace.validate()
    opts = trace.header.options
    assert (opts["mode"], opts["layout"], opts["time-unit"]) == (
        "long-running-methods",
        layout,
        unit,
    )
    assert ("time-unit" in {d.code for d in trace.diagnostics}) == (unit != "ns")
    want = kept(events, ERAS[era].threshold)
    got = sequences(trace)
    origin = min(t for seq in want.values() for t, _ in seq)
    for tid, seq in want.items():
        assert [m for _, m in got[tid]] == [m for _, m in seq]
        ns = [(t - origin) * 10**9 // HZ for t, _ in seq]  # what the ticks mean
        assert np.allclose([w for w, _ in got[tid]], ns, rtol=1e-6, atol=2000)
    assert (trace.threads.name[0] is not None) == ERAS[era].long_running_threads


def test_the_summary_gives_the_monotonic_clock() -> None:
    events = scripted(2)
    trace = load(record(events, "long-running", "newest"))
    head = trace.header
    origin_ns = events[0][0] * 10**9 // HZ
    end_ns = (events[-1][0] + 7) * 10**9 // HZ
    assert head.end_ns is not None and abs(head.end_ns - (end_ns - origin_ns)) <= 2
    assert head.monotonic_offset_ns is not None
    assert abs(head.monotonic_offset_ns - (origin_ns + 1_234_567)) <= 2  # ArtRun's offset
    assert head.options["end-time-ns"] and head.options["monotonic-ns"]


@pytest.mark.parametrize("era", ["2024-09-26", "2025-02-07", "2025-02-25", "2025-02-26", "newest"])
def test_all_methods_eras_read_alike(era: str) -> None:
    events = scripted(3, n=1500)
    trace = load(record(events, "all", era))
    trace.validate()
    assert trace.header.axis == "order"
    assert trace.header.options["layout"].startswith(f"{ERAS[era].header}-byte")
    ref = load(record(events, "all", "newest"))
    assert sequences(trace) == sequences(ref)


def test_flushes_keep_what_art_keeps() -> None:
    """More kept events than the 2048-slot buffer holds: ART flushes finished calls into the
    process's buffer (written after the current blocks in a file); the reader puts each
    thread's blocks back in time order."""
    events = scripted(4, n=6000, depth_cap=12)
    data = record(events, "long-running", "newest")
    trace = load(data)
    trace.validate()
    assert data.count(b"\x02\x01\x00\x00\x00") >= 2  # thread 1 has flushed blocks
    want = kept(events, ERAS["newest"].threshold)
    got = sequences(trace)
    for tid, seq in want.items():
        assert [m for _, m in got[tid]] == [m for _, m in seq]


def test_the_february_2025_long_running_layout_is_refused() -> None:
    with pytest.raises(TraceFormatError, match="7-25 February 2025") as caught:
        load(record(scripted(5), "long-running", "2025-02-07"))
    assert "\n" not in str(caught.value)


def test_the_first_text_layout_is_refused() -> None:
    text = b"Thread:1234\n->0x7000 1000\n<-2000\n\n*threads\n1234\tmain\n*methods\n*end"
    with pytest.raises(TraceFormatError, match="first text layout") as caught:
        load(text)
    assert "\n" not in str(caught.value)
