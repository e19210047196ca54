"""The compiled record decoding (analysis/kernels/decode.py) reads every V1 trace exactly as the
numpy decoding does: events, tables and diagnostics, on generated traces of every clock, style
and variant (wrapped clocks, sparse Dalvik ids, time going backwards, unused actions, threads
and methods missing from the key) and on the corpus, with each chunk's clocks decoded on the
calling thread or on threads of their own. The reader uses it past the first ~200k records;
here from the first record."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import traceview
import traceview.readers.v1.clocks as clocks
import traceview.readers.v1.compiled as compiled_chunks
import traceview.readers.v1.records as records
from support.corpus import readable
from traceview.model import Clock, Trace, Variant
from traceview.synth import generate
from traceview.writer import write


def both(source: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[Trace, Trace]:
    """`source` read by the numpy decoding and by the compiled one (every chunk)."""
    with monkeypatch.context() as m:
        m.setattr(records, "_NATIVE", False)
        plain = traceview.load(source)
    with monkeypatch.context() as m:
        m.setattr(clocks, "_SAMPLE", 0)
        compiled = traceview.load(source)
    with monkeypatch.context() as m:  # the same sample for the wall-unit check, numpy only
        m.setattr(clocks, "_SAMPLE", 0)
        m.setattr(records, "_NATIVE", False)
        sampled = traceview.load(source)
    assert sampled.diagnostics == compiled.diagnostics
    with monkeypatch.context() as m:  # every chunk's clocks on threads of their own
        m.setattr(clocks, "_SAMPLE", 0)
        m.setattr(compiled_chunks, "PARALLEL", 0)
        together = traceview.load(source)
    same(compiled, together)
    assert together.diagnostics == compiled.diagnostics
    return plain, compiled


def same(a: Trace, b: Trace) -> None:
    for name in ("thread", "method", "action", "cpu", "wall"):
        x, y = getattr(a.events, name), getattr(b.events, name)
        assert (x is None) == (y is None), name
        if x is not None:
            assert x.dtype == y.dtype and np.array_equal(x, y), name
    assert list(a.threads.id) == list(b.threads.id) and a.threads.name == b.threads.name
    assert list(a.methods.id) == list(b.methods.id)


def as_bytes(trace: Trace, variant: Variant = "regular") -> bytes:
    out = io.BytesIO()
    write(trace, out, variant=variant)
    return out.getvalue()


@pytest.mark.parametrize("clock", ["dual", "wall", "thread-cpu"])
@pytest.mark.parametrize("style", ["art", "dalvik"])
def test_generated(clock: Clock, style: str, monkeypatch: pytest.MonkeyPatch) -> None:
    trace = generate(records=30_000, threads=5, seed=3, clock=clock, style=style)
    same(*both(as_bytes(trace), monkeypatch))


@pytest.mark.parametrize("variant", ["regular", "streaming"])
def test_wrapped_clocks_and_chunks(variant: Variant, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past 2^32 µs the u32 times wrap (unwrapped per thread, across chunks)."""
    trace = generate(records=20_000, threads=4, seed=8, duration_us=3 * 2**32, order="chunks")
    plain, compiled = both(as_bytes(trace, variant), monkeypatch)
    same(plain, compiled)
    assert plain.diagnostics == compiled.diagnostics
    assert "clock-wrap" in {d.code for d in compiled.diagnostics}


def test_backwards_times_unknown_ids_and_unused_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Times stepping back (clamped), action 3 (an exit), a thread and a method the key does
    not name (the chunk goes to the numpy path), all as the numpy decoding does."""
    data = bytearray(as_bytes(generate(records=5_000, threads=3, seed=4)))
    magic = data.index(b"SLOW")  # the data header: magic, version, offset of the records
    start = magic + int.from_bytes(data[magic + 6 : magic + 8], "little")
    size = 14
    rng = np.random.default_rng(1)
    for i in rng.choice(4000, 40, replace=False):
        at = start + int(i) * size
        cpu = int.from_bytes(data[at + 6 : at + 10], "little")
        data[at + 6 : at + 10] = (cpu // 2).to_bytes(4, "little")  # time going backwards
    at = start + 100 * size
    data[at + 2] |= 3  # action 3
    plain, compiled = both(bytes(data), monkeypatch)
    same(plain, compiled)
    assert plain.diagnostics == compiled.diagnostics
    assert {"time-backwards", "bad-action"} <= {d.code for d in compiled.diagnostics}
    unknown = bytearray(data)
    unknown[start + 200 * size : start + 200 * size + 2] = (999).to_bytes(2, "little")
    plain, compiled = both(bytes(unknown), monkeypatch)
    same(plain, compiled)
    assert plain.diagnostics == compiled.diagnostics
    assert "unknown-thread" in {d.code for d in compiled.diagnostics}


@pytest.mark.parametrize("path", readable(), ids=lambda p: p.name)
def test_corpus(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain, compiled = both(path, monkeypatch)
    same(plain, compiled)
    assert plain.diagnostics == compiled.diagnostics
