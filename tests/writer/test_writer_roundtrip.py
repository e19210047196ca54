"""Writer round trips: write(read(write(t))) gives the same bytes for every V1 variant, version,
clock and option, and the read trace carries the same events as the one written."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from support.writer_out import written
from traceview import load
from traceview.model import Trace, Variant
from traceview.synth import generate
from traceview.writer import write

VARIANTS = ("regular", "data-only", "streaming", "streaming-nosummary")
CLOCK_VERSIONS = [("dual", 3), ("thread-cpu", 1), ("thread-cpu", 2), ("wall", 1), ("wall", 2)]
CLOCK_VERSIONS += [("global", 1), ("global", 2)]


def _same_events(a: Trace, b: Trace) -> None:
    ea, eb = a.events, b.events
    assert np.array_equal(ea.action, eb.action)
    ids_a, ids_b = a.threads.id[ea.thread], b.threads.id[eb.thread]
    assert np.array_equal(ids_a, ids_b)
    names_a = np.array(a.methods.name, dtype=object)[ea.method]
    names_b = np.array(b.methods.name, dtype=object)[eb.method]
    assert np.array_equal(names_a, names_b)
    for clock in a.clocks:
        assert np.array_equal(ea.time(clock), eb.time(clock)), clock


@pytest.fixture(scope="module")
def traces() -> dict[tuple[str, str], Trace]:
    out = {}
    for style in ("art", "dalvik"):
        for clock in ("dual", "thread-cpu", "wall", "global"):
            t = generate(records=2500, threads=5, seed=11, clock=clock, style=style)
            t.validate()
            out[style, clock] = t
    return out


@pytest.mark.parametrize("style", ["art", "dalvik"])
@pytest.mark.parametrize(("clock", "version"), CLOCK_VERSIONS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_round_trip_bytes(
    traces: dict[tuple[str, str], Trace], style: str, clock: str, version: int, variant: str
) -> None:
    trace = traces[style, clock]
    kw: dict[str, Any] = {"variant": variant, "version": version, "style": style}
    first = written(trace, **kw)
    back = load(first)
    back.validate()
    assert written(back, **kw) == first
    if variant in ("regular", "streaming"):
        assert back.header.clock == clock
        assert back.header.vm == ("dalvik" if style == "dalvik" else "art")
        _same_events(trace, back)
        assert back.header.variant == variant


def test_split_pair_round_trip(tmp_path: Path, traces: dict[tuple[str, str], Trace]) -> None:
    trace = traces["art", "dual"]
    key, data = write(trace, tmp_path / "t.trace", variant="split")
    assert (key.name, data.name) == ("t.key", "t.data")
    assert data.read_bytes()[:4] == b"SLOW"
    back = load(tmp_path / "t")
    back.validate()
    assert back.header.variant == "split"
    _same_events(trace, back)
    again = write(back, tmp_path / "u", variant="split")
    assert [p.read_bytes() for p in again] == [key.read_bytes(), data.read_bytes()]
    # a split pair is the regular file cut in two
    assert key.read_bytes() + data.read_bytes() == written(trace, variant="regular")


@pytest.mark.parametrize(
    "options",
    [
        {"data_offset": 16, "version": 2, "clock": "wall"},
        {"record_size": 18},
        {"record_size": 20, "variant": "streaming"},
        {"overflow": True},
        {"style": "dalvik", "variant": "streaming"},
    ],
)
def test_options_round_trip(traces: dict[tuple[str, str], Trace], options: dict[str, Any]) -> None:
    trace = traces["art", "dual"]
    first = written(trace, **options)
    back = load(first)
    back.validate()
    assert written(back, **options) == first
    if "record_size" in options:
        assert back.header.record_size == options["record_size"]
    if options.get("overflow"):
        assert back.header.overflow
        assert b"data-file-overflow=true\n" in first


def test_unknown_options_are_kept(traces: dict[tuple[str, str], Trace]) -> None:
    from dataclasses import replace

    trace = traces["art", "dual"]
    opts = {"vm": "art", "my-vendor-key": "42", "clock": "wall", "num-method-calls": "1"}
    odd = replace(trace, header=replace(trace.header, options=opts))
    text = written(odd).split(b"*threads\n")[0].decode()
    lines = text.splitlines()[2:]
    assert lines[:4] == ["vm=art", "my-vendor-key=42", "clock=dual", f"num-method-calls={2500}"]
    assert "data-file-overflow=false" in lines
    assert load(written(odd)).header.options["my-vendor-key"] == "42"


def test_past_the_32_bit_wrap() -> None:
    trace = generate(records=5000, threads=3, seed=2, duration_us=6_000_000_000)
    assert trace.events.wall is not None
    assert int(trace.events.wall.max()) > (1 << 32) * 1000
    data = written(trace)
    back = load(data)
    back.validate()
    _same_events(trace, back)
    assert written(back) == data


def test_v2_ids_are_renumbered_for_v1(traces: dict[tuple[str, str], Trace]) -> None:
    from dataclasses import replace

    trace = traces["art", "dual"]
    base = np.uint64(0x7F00_0000_1000)  # V2 ids are 64-bit ArtMethod* pointers
    wide = np.arange(len(trace.methods), dtype=np.uint64) * np.uint64(24) + base
    big = replace(trace, methods=replace(trace.methods, id=wide))
    with pytest.raises(ValueError, match="32 bits"):
        write(big, io.BytesIO(), renumber=False)
    back = load(written(big))
    back.validate()
    _same_events(trace, back)


def _per_thread(trace: Trace) -> list[tuple[int, np.ndarray, np.ndarray, list[np.ndarray]]]:
    ev = trace.events
    out = []
    for row in range(len(trace.threads)):
        sel = ev.thread == row
        if sel.any():
            times = [ev.time(c)[sel] for c in ev.clocks]
            out.append(
                (
                    int(trace.threads.id[row]),
                    ev.action[sel],
                    trace.methods.id[ev.method[sel]],
                    times,
                )
            )
    return sorted(out, key=lambda x: x[0])


@pytest.mark.parametrize("clock", ["dual", "wall", "thread-cpu"])
@pytest.mark.parametrize("variant", ["v2", "v2-streaming"])
@pytest.mark.parametrize("generation", ["alpha", "beta", "gamma"])
def test_v2_round_trip(
    traces: dict[tuple[str, str], Trace], clock: str, variant: Variant, generation: str
) -> None:
    pytest.importorskip("traceview.writer.v2")
    trace = traces["art", clock]
    first = written(trace, variant=variant, generation=generation)
    back = load(first)
    back.validate()
    assert back.header.variant == variant and back.header.clock == clock
    assert written(back, variant=variant, generation=generation) == first
    # V2 stores per-thread blocks: each thread's records are the same, in the same order
    # (gamma exits carry no method id: an exit without its enter cannot be named)
    for (ta, aa, ma, xa), (tb, ab, mb, xb) in zip(
        _per_thread(trace), _per_thread(back), strict=True
    ):
        named = aa == 0 if generation == "gamma" else np.ones(len(aa), dtype=bool)
        assert ta == tb and np.array_equal(aa, ab) and np.array_equal(ma[named], mb[named])
        assert all(np.array_equal(x, y) for x, y in zip(xa, xb, strict=True))


def test_v2_then_v1() -> None:
    """A V2 trace (64-bit ids, ns times) written as regular V1: renumbered ids, µs times."""
    pytest.importorskip("traceview.writer.v2")
    v2 = load(written(generate(records=2000, threads=4, seed=3), variant="v2"))
    regular = load(written(v2, variant="regular"))
    regular.validate()
    assert regular.header.version == 3 and regular.header.clock == "dual"
    assert len(regular.events) == len(v2.events)
    assert written(regular, variant="regular") == written(v2, variant="regular")
