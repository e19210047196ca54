"""`clock=global` (early Dalvik: "a common clock across all threads") is wall time: read into
the wall column, numbers unchanged; integer sums in the readers."""

from __future__ import annotations

import io

import pytest

import traceview
import traceview.writer
from support import readers_bytes as rb
from traceview.synth import generate

ROWS = [(1, 0x0, 0, 7), (1, 0x4, 0, 9), (1, 0x4, 1, 11), (1, 0x0, 1, 15)]


@pytest.mark.parametrize("version", [1, 2])
def test_global_clock_is_wall(version: int) -> None:
    trace = traceview.load(rb.regular(ROWS, version=version, clock="global"))
    trace.validate()
    assert trace.header.clock == "global"
    assert trace.clocks == ("wall",)
    assert trace.events.time("wall").tolist() == [7000, 9000, 11000, 15000]


def test_global_streaming_is_wall() -> None:
    data = rb.streaming(ROWS, version=0xF2)
    text = rb.key(version=2, clock="global", threads=(), methods=rb.METHODS)
    data = data[: data.rfind(b"\0\0\x03")] + rb.summary_packet(text)
    trace = traceview.load(data)
    assert trace.clocks == ("wall",) and trace.header.clock == "global"


def test_generated_global_round_trip() -> None:
    trace = generate(records=2000, threads=3, seed=5, clock="global", style="dalvik")
    assert trace.clocks == ("wall",)
    buf = io.BytesIO()
    traceview.writer.write(trace, buf, variant="regular", clock="global")
    back = traceview.load(buf.getvalue())
    back.validate()
    assert back.clocks == ("wall",)
    assert back.events.time("wall").tolist() == trace.events.time("wall").tolist()


@pytest.mark.parametrize("freq", [2**64 - 1, 2**63, 10**12, 1])
def test_gamma_tsc_frequency_extremes(freq: int) -> None:
    trace = generate(records=2000, threads=3, seed=6)
    buf = io.BytesIO()
    traceview.writer.write(trace, buf, variant="v2-streaming", generation="gamma")
    data = bytearray(buf.getvalue())
    data[22:30] = freq.to_bytes(8, "little")
    back = traceview.load(bytes(data))
    back.validate()
    assert back.header.entry_format == "gamma" and len(back.events) == len(trace.events)
    for clock in back.clocks:
        assert back.events.time(clock).dtype.kind == "i"
