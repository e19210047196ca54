"""`load(..., clocks=...)`: a command that reads one clock (dmtracedump's report) has only that
clock's times decoded, the other column never allocated, and every kept column is the one a
full read gives (numpy and compiled decoding, wrapped and backwards times, threads the key
does not name, the wall-unit check); other variants drop the column after reading."""

from __future__ import annotations

import io
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import traceview
import traceview.readers.v1.clocks as clocks
import traceview.readers.v1.records as records
from support import readers_bytes as rb
from traceview.model import Trace, Variant
from traceview.synth import generate
from traceview.writer import write


def as_bytes(trace: Trace, variant: Variant = "regular") -> bytes:
    out = io.BytesIO()
    write(trace, out, variant=variant)
    return out.getvalue()


def same_but(full: Trace, one: Trace, kept: str) -> None:
    """`one` is `full` with the time column of `kept` alone."""
    dropped = "wall" if kept == "cpu" else "cpu"
    assert getattr(one.events, dropped) is None
    for name in ("thread", "method", "action", kept):
        x, y = getattr(full.events, name), getattr(one.events, name)
        assert x.dtype == y.dtype and np.array_equal(x, y), name
    assert list(full.threads.id) == list(one.threads.id)
    assert list(full.methods.id) == list(one.methods.id)


def unknown_threads(data: bytes, tid: int, every: int) -> bytes:
    """`data` with every `every`-th record moved to thread ids from `tid` on (not in the key)."""
    out = bytearray(data)
    magic = out.index(b"SLOW")
    start = magic + int.from_bytes(out[magic + 6 : magic + 8], "little")
    for n, at in enumerate(range(start, len(out) - 13, 14 * every)):
        out[at : at + 2] = (tid + n % 300).to_bytes(2, "little")
    return bytes(out)


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("kept", ["cpu", "wall"])
def test_one_clock_as_in_a_full_read(
    kept: str, compiled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Wrapped clocks, records in per-thread chunks, and 300 thread ids the key does not name
    (the thread column widens past a byte while it is decoded)."""
    trace = generate(records=40_000, threads=4, seed=8, duration_us=3 * 2**32, order="chunks")
    for data in (as_bytes(trace), unknown_threads(as_bytes(trace), 5000, 97)):
        with monkeypatch.context() as m:
            m.setattr(clocks, "_SAMPLE", 0 if compiled else clocks._SAMPLE)
            m.setattr(records, "_NATIVE", compiled)
            full = traceview.load(data)
            one = traceview.load(data, clocks=(kept,))
        same_but(full, one, kept)
    assert len(full.threads) > 256 and full.events.thread.dtype == np.uint16


def test_wall_alone_keeps_the_wall_unit_check() -> None:
    rows = [(1, 0, 0, 0, 0), (1, 0, 0, 20_000, 20), (1, 0, 1, 40_000, 41)]
    data = rb.regular(rows, options=("elapsed-time-usec=50",))
    wall = traceview.load(data, clocks=("wall",))
    assert wall.events.cpu is None
    assert wall.events.wall is not None
    assert wall.events.wall.tolist() == [0, 20_000_000, 41_000_000]
    assert "wall-unit-bug" in {d.code for d in wall.diagnostics}


def test_a_clock_the_trace_lacks_keeps_what_it_has() -> None:
    data = as_bytes(generate(records=2_000, threads=2, seed=1, clock="thread-cpu"))
    assert traceview.load(data, clocks=("wall",)).events.clocks == ("cpu",)


def test_other_variants_drop_the_column() -> None:
    data = as_bytes(generate(records=2_000, threads=2, seed=1), variant="v2")
    full, one = traceview.load(data), traceview.load(data, clocks=("cpu",))
    same_but(full, one, "cpu")


def peak_bytes(path: Path, **kw: Any) -> int:
    tracemalloc.start()
    try:
        traceview.load(path, **kw)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_other_column_is_never_allocated(tmp_path: Path) -> None:
    """numpy reports its buffers to tracemalloc: reading the CPU clock alone peaks at least
    7 of the wall column's 8 bytes a record lower."""
    n = 300_000
    path = tmp_path / "t.trace"
    path.write_bytes(as_bytes(generate(records=n, threads=4, seed=2)))
    full, one = peak_bytes(path), peak_bytes(path, clocks=("cpu",))
    assert full - one >= 7 * n, (full, one)
