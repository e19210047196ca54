"""What may be read and how much: regular files, gzip (bounded) and stdin only; zero runs,
bombs and keys without `*end` end quickly with a result or one TraceError naming the path."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

import traceview
from support import hostile
from traceview.model import TraceError, Variant

SRC = Path(__file__).resolve().parents[2] / "src"


def codes(trace: traceview.Trace) -> set[str]:
    return {d.code for d in trace.diagnostics}


def test_gzip_bomb_stops_at_the_zero_run() -> None:
    bomb = hostile.gzip_of_zeros(256 << 20)
    tracemalloc.start()
    try:
        with pytest.raises(TraceError, match="only one repeated byte"):
            traceview.load(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20


def test_gzip_output_bounded_by_max_size() -> None:
    data = hostile.gzip_of(hostile.written("regular"))
    assert len(traceview.load(data).events) == 4000
    with pytest.raises(TraceError, match="max_size"):
        traceview.load(data, max_size=10_000)


def test_max_size_bounds_files_and_bytes(tmp_path: Path) -> None:
    data = hostile.written("regular")
    path = tmp_path / "a.trace"
    path.write_bytes(data)
    for source in (path, data, io.BytesIO(data)):
        with pytest.raises(TraceError, match="max_size"):
            traceview.load(source, max_size=1000)


@pytest.mark.parametrize("variant", ["regular", "streaming", "v2"])
def test_sparse_zero_tail_is_cut(tmp_path: Path, variant: Variant) -> None:
    path = hostile.sparse_after(tmp_path / "z.trace", hostile.written(variant), 1 << 31)
    trace = traceview.load(path)
    trace.validate()
    assert len(trace.events) == 4000
    assert "fill-run" in codes(trace)


def test_v2_header_then_zeros(tmp_path: Path) -> None:
    path = hostile.sparse_after(tmp_path / "z.trace", hostile.v2_header(), 1 << 31)
    trace = traceview.load(path)
    assert len(trace.events) == 0 and "fill-run" in codes(trace)


def test_gzip_of_trace_then_zeros() -> None:
    data = hostile.gzip_of(hostile.written("v2") + bytes(64 << 20))
    trace = traceview.load(data)
    assert len(trace.events) == 4000 and "fill-run" in codes(trace)


def test_key_search_is_bounded(tmp_path: Path) -> None:
    path = tmp_path / "noend.trace"
    path.write_bytes(b"*version\n3\n" + b"x" * (70 << 20))
    with pytest.raises(TraceError, match="no \\*end line in its first 64 MiB"):
        traceview.load(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_is_refused_without_opening(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.trace"
    os.mkfifo(fifo)
    with pytest.raises(TraceError, match="FIFO") as err:
        traceview.load(fifo)  # no writer: open() would block forever
    assert str(fifo) in str(err.value)


def test_directory_and_device_are_refused(tmp_path: Path) -> None:
    with pytest.raises(TraceError, match="directory"):
        traceview.load(tmp_path)
    if Path("/dev/null").is_char_device():  # a sandbox may hold a plain file there
        with pytest.raises(TraceError, match="character device"):
            traceview.load("/dev/null")


def test_paths_in_errors_are_escaped(tmp_path: Path) -> None:
    bad = tmp_path / "a\nb\x1b[31m.trace"
    bad.write_bytes(b"junk")
    with pytest.raises(TraceError) as err:
        traceview.load(bad)
    line = str(err.value)
    assert "\n" not in line and "\x1b" not in line and "a\\x0ab\\x1b[31m" in line


def test_missing_file_names_the_escaped_path(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as err:
        traceview.load(tmp_path / "no\nsuch")
    assert "\n" not in str(err.value.filename)


def test_stdin_is_read(tmp_path: Path) -> None:
    data = hostile.written("streaming")
    code = "import traceview; t = traceview.load('-'); print(len(t.events), t.source)"
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    out = subprocess.run(
        [sys.executable, "-c", code], input=data, capture_output=True, env=env, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [b"4000", b"-"]


@pytest.mark.parametrize("fill", [b"\x00", b"\xff"])
@pytest.mark.parametrize("chunk", [1000, 4096, 1 << 20])
def test_fill_run_finder_across_chunks(chunk: int, fill: bytes) -> None:
    from traceview.readers.source import FillRun

    limit = 4096
    data = bytearray(b"\x01" * 50_000)
    data[10_003:13_000] = fill * 2997  # too short
    data[20_001:24_200] = fill * 4199  # long enough: begins at 20_001
    finder = FillRun(limit=limit)
    found = None
    for at in range(0, len(data), chunk):
        found = finder.feed(bytes(data[at : at + chunk]))
        if found is not None:
            break
    assert found is not None and 20_001 <= found < 20_001 + 8
    assert set(data[found : found + limit - 8]) == set(fill)


@pytest.mark.parametrize("variant", ["regular", "streaming", "v2"])
def test_erased_ff_tail_is_cut(variant: Variant) -> None:
    trace = traceview.load(hostile.written(variant) + b"\xff" * (3 << 20))
    trace.validate()
    assert len(trace.events) == 4000 and "fill-run" in codes(trace)


def test_sparse_tail_past_max_size_is_cut_not_refused(tmp_path: Path) -> None:
    data = hostile.written("regular")
    path = hostile.sparse_after(tmp_path / "z.trace", data, 64 << 20)
    trace = traceview.load(path, max_size=len(data) + 1000)
    assert len(trace.events) == 4000 and "fill-run" in codes(trace)


def test_undecodable_path_bytes_are_escaped(tmp_path: Path) -> None:
    bad = tmp_path / os.fsdecode(b"caf\xe9\xff.trace")
    try:
        bad.write_bytes(b"junk")
    except (OSError, UnicodeEncodeError):
        pytest.skip("the file system refuses undecodable names")
    with pytest.raises(TraceError) as err:
        traceview.load(bad)
    line = str(err.value)
    assert "caf\\xe9\\xff.trace" in line
    line.encode("utf-8")  # no lone surrogates left
