"""When the viewer starts the process filling numba's cache (cli/precompile.py): while a file
too big to be a small trace loads, after loading for a mid-sized one that is not small, and
never for a small trace — a 1.2 MB recording of 70k records started one (a second of CPU
beside the browser's start) although its first screens need no kernel."""

from __future__ import annotations

from pathlib import Path

import pytest

from traceview.cli import precompile, view
from traceview.cli.demo import demo_trace
from traceview.synth import generate
from traceview.writer import write


def started(monkeypatch: pytest.MonkeyPatch, path: Path) -> list[int]:
    """How many cache-filling processes `traceview view PATH` started (the server not run),
    with the product's small-trace threshold (the suite's conftest turns it off)."""
    import traceview.analysis.small as small

    monkeypatch.setattr(small, "SMALL", 1 << 17)
    calls: list[int] = []
    monkeypatch.setattr(precompile, "start", lambda: calls.append(1))
    monkeypatch.setattr(view, "run", lambda *a: None)
    assert view.main([str(path), "--no-browser", "--port", "0"]) == 0
    return calls


def test_a_small_trace_past_a_mebibyte_starts_none(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "small.trace"
    write(generate(records=100_000, threads=4, seed=3), str(path))
    assert path.stat().st_size > 1 << 20
    assert started(monkeypatch, path) == []


def test_a_mid_sized_trace_that_is_not_small_starts_one_once_loaded(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "mid.trace"
    write(generate(records=200_000, threads=4, seed=3), str(path))
    assert path.stat().st_size < precompile.BIG_FILE
    assert not precompile.worth_it(str(path))
    assert started(monkeypatch, path) == [1]


def test_which_files_start_it_before_loading(tmp_path: Path) -> None:
    big = tmp_path / "big.trace"
    with big.open("wb") as f:
        f.truncate(precompile.BIG_FILE)
    assert precompile.worth_it(str(big))
    assert precompile.worth_it("-") and precompile.worth_it(str(tmp_path / "missing.trace"))
    small = tmp_path / "small.trace"
    small.write_bytes(b"x" * 1000)
    assert not precompile.worth_it(str(small))
    packed = tmp_path / "packed.trace.gz"  # gzip counted at an eighth of what it holds
    packed.write_bytes(b"x" * (precompile.BIG_FILE // 8))
    assert precompile.worth_it(str(packed))
    demo = demo_trace()  # the demo (gzipped) is decided once loaded: it is small
    assert demo.endswith(".gz") and not precompile.worth_it(demo)
