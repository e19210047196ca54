"""Write → read round trips through `traceview.writer` for every V1 variant, version and clock."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Unpack

import numpy as np
import pytest

import traceview
from support.writer_out import WriteArgs
from traceview.model import Clock, Trace, Variant
from traceview.synth import generate
from traceview.writer import write


def same_events(original: Trace, loaded: Trace) -> None:
    """Equal records by id (row order may differ between variants), times to the µs."""
    loaded.validate()
    a, b = original.events, loaded.events
    assert len(a) == len(b)
    assert np.array_equal(original.threads.id[a.thread], loaded.threads.id[b.thread])
    assert np.array_equal(original.methods.id[a.method], loaded.methods.id[b.method])
    assert np.array_equal(a.action, b.action)
    for clock in b.clocks:
        assert np.array_equal(a.time(clock) // 1000 * 1000, b.time(clock)), clock


def roundtrip(trace: Trace, **options: Unpack[WriteArgs]) -> Trace:
    buf = io.BytesIO()
    write(trace, buf, **options)
    return traceview.load(buf.getvalue())


@pytest.mark.parametrize("variant", ["regular", "data-only", "streaming", "streaming-nosummary"])
@pytest.mark.parametrize("style", ["art", "dalvik"])
def test_variants(variant: Variant, style: str) -> None:
    trace = generate(records=3000, threads=5, seed=3, style=style)
    loaded = roundtrip(trace, variant=variant)
    assert loaded.header.variant == variant
    same_events(trace, loaded)
    if variant != "data-only":
        by_id = dict(zip(loaded.methods.id.tolist(), loaded.methods.name, strict=True))
        for mid, name in zip(trace.methods.id.tolist(), trace.methods.name, strict=True):
            assert by_id.get(mid, name) == name
    assert not {d.code for d in loaded.diagnostics} & {"time-backwards", "unknown-thread"}


def test_split_pair(tmp_path: Path) -> None:
    trace = generate(records=2000, threads=3, seed=4)
    key, data = write(trace, tmp_path / "pair.trace", variant="split")
    for name in (key, data, tmp_path / "pair"):
        loaded = traceview.load(name)
        assert loaded.header.variant == "split"
        same_events(trace, loaded)


@pytest.mark.parametrize(("version", "clock"), [(1, "thread-cpu"), (2, "wall"), (2, "thread-cpu")])
def test_single_clock_versions(version: int, clock: Clock) -> None:
    trace = generate(records=2000, threads=4, seed=5, clock=clock)
    loaded = roundtrip(trace, version=version)
    assert (loaded.header.version, loaded.header.clock) == (version, clock)
    same_events(trace, loaded)


def test_padded_records_and_short_header() -> None:
    trace = generate(records=2000, threads=3, seed=6)
    loaded = roundtrip(trace, record_size=20)
    assert loaded.header.record_size == 20
    same_events(trace, loaded)
    single = generate(records=2000, threads=3, seed=6, clock="thread-cpu")
    same_events(single, roundtrip(single, version=2, data_offset=16))


def test_past_the_32_bit_wrap() -> None:
    trace = generate(records=4000, threads=3, seed=7, duration_us=2**32 + 10**9)
    loaded = roundtrip(trace)
    assert "clock-wrap" in {d.code for d in loaded.diagnostics}
    same_events(trace, loaded)
    assert loaded.events.wall is not None and int(loaded.events.wall.max()) > 2**32 * 1000


def test_sampled_guess() -> None:
    trace = generate(records=5000, threads=4, seed=8, sampled=True, sampling_interval_us=1000)
    loaded = roundtrip(trace)
    assert loaded.header.sampled
    assert loaded.header.sampling_interval_us is not None
    assert 900 <= loaded.header.sampling_interval_us <= 1500
    assert not roundtrip(generate(records=5000, threads=4, seed=8)).header.sampled


def test_chunked_file_reading_matches_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from traceview.readers import source as _source

    trace = generate(records=20000, threads=6, seed=9)
    path = tmp_path / "big.trace"
    write(trace, path)
    monkeypatch.setattr(_source, "CHUNK_BYTES", 4096)
    same_events(trace, traceview.load(path))
