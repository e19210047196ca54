"""V2 writer round trips: write -> read -> write gives the same bytes, for every generation,
clock and file/streaming mode; the records read back are the ones written."""

from __future__ import annotations

import io
from typing import Required, TypedDict, Unpack

import numpy as np
import pytest

import traceview
from traceview.model import Trace
from traceview.readers.v2 import read
from traceview.synth import generate
from traceview.writer import write
from traceview.writer.v2 import write_v2

GENERATIONS = ("beta", "alpha", "gamma")
CLOCKS = ("dual", "wall", "thread-cpu")


@pytest.fixture(scope="module")
def source() -> Trace:
    trace = generate(3000, threads=4, seed=7, balanced=True)
    trace.validate()
    return trace


def per_thread(trace: Trace, clock: str, scale: int = 1) -> dict[int, list[tuple[str, int, int]]]:
    """tid -> [(method label, action, time // scale)] in the thread's order."""
    ev = trace.events
    times = ev.time("cpu" if clock == "thread-cpu" else "wall") // scale
    out: dict[int, list[tuple[str, int, int]]] = {}
    for i in range(len(ev)):
        tid = int(trace.threads.id[int(ev.thread[i])])
        label = trace.methods.label(int(ev.method[i]))
        out.setdefault(tid, []).append((label, int(ev.action[i]), int(times[i])))
    return out


class V2Options(TypedDict, total=False):
    """`write_v2`'s keyword arguments."""

    streaming: Required[bool]
    generation: str
    clock: str | None
    unit: str
    block_records: int


def dump(trace: Trace, **kw: Unpack[V2Options]) -> bytes:
    buf = io.BytesIO()
    write_v2(trace, buf, **kw)
    return buf.getvalue()


@pytest.mark.parametrize("generation", GENERATIONS)
@pytest.mark.parametrize("clock", CLOCKS)
@pytest.mark.parametrize("streaming", [False, True])
def test_round_trip(source: Trace, generation: str, clock: str, streaming: bool) -> None:
    kw: V2Options = {
        "streaming": streaming,
        "generation": generation,
        "clock": clock,
        "block_records": 500,
    }
    first = dump(source, **kw)
    back = read(first)
    back.validate()
    assert dump(back, **kw) == first
    h = back.header
    assert h.entry_format == generation
    assert h.variant == ("v2-streaming" if streaming else "v2")
    assert h.version == (5 if clock == "dual" else 4) | (0xF0 if streaming else 0)
    assert h.clock == clock
    assert back.diagnostics == []
    scale = 1000 if generation == "alpha" else 1  # alpha stores µs
    want = per_thread(source, clock, scale)
    got = per_thread(back, clock, scale)
    # gamma exits carry no method: the reader pops its own stack, exact for a balanced trace
    assert got == want
    threads = dict(zip(back.threads.id.tolist(), back.threads.name, strict=True))
    assert threads == dict(zip(source.threads.id.tolist(), source.threads.name, strict=True))
    assert len(back.methods) == len(source.methods)


@pytest.mark.parametrize("unit", ["ns", "us"])
def test_beta_units(source: Trace, unit: str) -> None:
    data = dump(source, streaming=False, unit=unit)
    back = read(data)
    back.validate()
    key = "elapsed-time-nsec" if unit == "ns" else "elapsed-time-usec"
    assert key in back.header.options and back.diagnostics == []
    assert back.events.wall is not None and source.events.wall is not None
    scale = 1 if unit == "ns" else 1000
    assert sorted((back.events.wall // scale).tolist()) == sorted(
        (source.events.wall // scale).tolist()
    )


def test_streaming_puts_thread_info_before_first_block(source: Trace) -> None:
    data = dump(source, streaming=True, block_records=200)
    first_block = data.index(b"\x02", 32 + data[32:].index(b"\x00"))  # after an info packet
    back = read(data)
    assert back.header.options["clock"] == "dual"
    assert first_block > 32


def test_large_ids_line_numbers_and_odd_names() -> None:
    trace = generate(200, threads=2, seed=3, balanced=True)
    me = trace.methods
    names = list(me.name)
    names[0] = "caf\u00e9\U0001f600"
    lines = me.line.copy()
    lines[1] = 548
    from dataclasses import replace

    ids = np.arange(len(me), dtype=np.uint64) * np.uint64(40) + np.uint64(0x7FFF_0000_0000)
    trace = replace(trace, methods=replace(me, id=ids, name=tuple(names), line=lines))
    data = dump(trace, streaming=True)
    back = read(data)
    back.validate()
    assert back.methods.name[0] == names[0] and int(back.methods.line[1]) == 548
    assert back.methods.id.tolist() == ids.tolist()
    assert dump(back, streaming=True) == data


def test_write_and_load_through_the_package(tmp_path: object, source: Trace) -> None:
    buf = io.BytesIO()
    write(source, buf, variant="v2-streaming")
    trace = traceview.load(buf.getvalue())
    trace.validate()
    assert trace.header.variant == "v2-streaming" and len(trace.events) == len(source.events)


def test_sampled_guess() -> None:
    sampled = generate(4000, threads=3, seed=2, sampled=True)
    back = read(dump(sampled, streaming=True))
    back.validate()
    assert back.header.sampled and back.header.sampling_interval_us is not None
    assert 900 <= back.header.sampling_interval_us <= 1100


def test_missing_clock_is_a_value_error(source: Trace) -> None:
    from traceview.writer import with_clock

    wall_only = with_clock(source, "wall")
    with pytest.raises(ValueError, match="cpu"):
        dump(wall_only, streaming=True, clock="dual")


def test_alpha_past_the_u32_microsecond_wrap() -> None:
    from support.tracebuild import make_trace

    big = 1 << 32
    events = [
        (1, "enter", "a.B.run", 0, big - 50),
        (1, "enter", "a.B.inner", 1, big - 20),
        (1, "exit", "a.B.inner", 2, big + 30),
        (1, "exit", "a.B.run", 3, big + 90),
    ]
    trace = make_trace(events, clock="dual")
    data = dump(trace, streaming=True, generation="alpha", block_records=1)
    back = read(data)
    back.validate()
    assert back.events.wall is not None and trace.events.wall is not None
    assert back.events.wall.tolist() == trace.events.wall.tolist()
    assert dump(back, streaming=True, generation="alpha", block_records=1) == data
