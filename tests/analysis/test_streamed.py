"""The whole-trace profile of a V1 file fed chunk by chunk (`analysis/streamed.py` through
readers/stream.py: two reads, no records kept) equals `direct_profile` of the file read whole:
every per-method, per-thread and edge array and the diagnostics, with chunks of a few records
or of thousands, one worker or two, on generated traces with frames open when tracing began,
wrapped clocks, time going backwards, many threads and more edges than the first table holds;
the trace returned has the whole read's tables and diagnostics and no records. Each runs with
the reader's first records decoded by numpy (its statistical sample) and with every chunk
decoded by the compiled pass."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import traceview
import traceview.readers.source as source
import traceview.readers.v1.clocks as v1_clocks
import traceview.readers.v1.records as decoder
from support.engine_checks import traces
from traceview.analysis.direct import direct_profile
from traceview.analysis.profile import Profile
from traceview.analysis.streamed import FirstLook, Pass
from traceview.model import Clock, Trace
from traceview.readers.stream import records
from traceview.synth import generate
from traceview.writer import write


def streamed(path: Path, clocks: tuple[str, ...], workers: int) -> tuple[Trace, Profile | None]:
    with records(path, max_size=1 << 30) as file:
        assert file is not None
        look = FirstLook()
        first = file.read(look, clocks=())
        assert len(first.events) == 0
        counts, synth = look.result(len(first.threads))
        sink = Pass(counts, synth, len(first.methods), workers)
        trace = file.read(sink, clocks)
    assert len(trace.events) == 0
    return trace, sink.profile(trace)


def edge_rows(p: Profile) -> list[tuple[object, ...]]:
    e = p.edges
    cols = [e.parent, e.child, e.parent_recursive, e.child_recursive, e.calls]
    rows = zip(*(c.tolist() for c in cols), *[e.incl[c].tolist() for c in p.clocks], strict=True)
    return sorted(rows)


def check(path: Path, workers: int = 2) -> None:
    whole = traceview.load(path)
    clocks = whole.clocks
    trace, got = streamed(path, clocks, workers)
    want = direct_profile(whole)
    assert got is not None
    assert trace.diagnostics == whole.diagnostics
    assert list(trace.threads.id) == list(whole.threads.id)
    assert list(trace.methods.id) == list(whole.methods.id)
    assert got.threads == want.threads and got.clocks == want.clocks
    for name in ("calls", "recursive_calls", "thread_calls"):
        assert np.array_equal(getattr(got, name), getattr(want, name)), name
    for name in ("incl", "excl", "top_excl", "thread_total"):
        for c in clocks:
            assert np.array_equal(getattr(got, name)[c], getattr(want, name)[c]), (name, c)
    assert got.toplevel == want.toplevel
    assert edge_rows(got) == edge_rows(want)
    assert got.diagnostics == want.diagnostics


def written(trace: Trace, tmp_path: Path, name: str = "t.trace") -> Path:
    out = io.BytesIO()
    write(trace, out, variant="regular")
    path = tmp_path / name
    path.write_bytes(out.getvalue())
    return path


@pytest.fixture(params=[14 * 7, 14 * 4096, source.CHUNK_BYTES], ids=["7", "4096", "default"])
def chunk(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    """Chunks of a few records, of thousands, and the reader's own."""
    monkeypatch.setattr(source, "CHUNK_BYTES", request.param)
    monkeypatch.setattr(decoder, "CHUNK_BYTES", request.param)
    return int(request.param)


@pytest.fixture(autouse=True, params=["sample", "compiled"])
def decoding(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The reader's statistical sample decoded by numpy first (these traces are all sample),
    or every chunk by the compiled pass."""
    if request.param == "compiled":
        monkeypatch.setattr(v1_clocks, "_SAMPLE", 0)
    return str(request.param)


@pytest.mark.parametrize("workers", [1, 2])
def test_generated(chunk: int, workers: int, tmp_path: Path) -> None:
    runs: tuple[tuple[int, Clock], ...] = ((1, "dual"), (2, "wall"), (3, "thread-cpu"))
    for seed, clock in runs:
        trace = generate(records=40_000, threads=6, seed=seed, clock=clock)
        check(written(trace, tmp_path, f"{seed}.trace"), workers)


def test_wrapped_clocks(chunk: int, tmp_path: Path) -> None:
    trace = generate(records=20_000, threads=4, seed=8, duration_us=3 * 2**32, order="chunks")
    check(written(trace, tmp_path))


@pytest.mark.parametrize("workers", [1, 2])
def test_time_going_backwards(chunk: int, workers: int, tmp_path: Path) -> None:
    """Times earlier than their thread's previous record, on both clocks: clamped, and
    counted, as the whole read does."""
    trace = generate(records=30_000, threads=5, seed=9, clock="dual")
    ev = trace.events
    rng = np.random.default_rng(9)
    for col in (ev.cpu, ev.wall):
        assert col is not None
        at = rng.choice(len(ev), 300, replace=False)
        col[at] = np.maximum(col[at] - 40_000, 0)  # 40 µs back
    path = written(trace, tmp_path)
    assert "time-backwards" in {d.code for d in traceview.load(path).diagnostics}
    check(path, workers)


def test_many_threads_and_edges(chunk: int, tmp_path: Path) -> None:
    """More edges than the table's first room, grown between and within chunks."""
    check(written(generate(records=60_000, threads=300, seed=5), tmp_path))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(traces(messy=True, threads=(1, 8)))
def test_messy_traces(trace: Trace) -> None:
    """Frames open when tracing began, unrolls, calls open at the end, ties; an exit naming
    another method than its thread's open call (the repair needs the thread's records):
    `Pass.profile` says None."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = written(trace, Path(tmp))
        whole = traceview.load(path)
        codes = {d.code for d in direct_profile(whole).diagnostics}
        if codes & {"forced-exit", "stray-exit-dropped"}:
            assert streamed(path, whole.clocks, 2)[1] is None
        else:
            check(path)


def test_one_worker_beside_the_readers_threads_on_two_cores(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On two cores the reader's clock threads keep one busy: the second read counts on one
    worker unless told otherwise (`stream_workers`)."""
    from traceview.analysis.streamed import stream_workers

    monkeypatch.delenv("TRACEVIEW_WORKERS", raising=False)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    assert stream_workers(None) == 1
    assert stream_workers(2) == 2
    monkeypatch.setenv("TRACEVIEW_WORKERS", "2")
    assert stream_workers(None) == 2
    monkeypatch.delenv("TRACEVIEW_WORKERS")
    monkeypatch.setattr("os.cpu_count", lambda: 8)
    assert stream_workers(None) == 2
