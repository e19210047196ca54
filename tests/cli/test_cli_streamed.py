"""`traceview dmtracedump` and `traceview -r` on a trace read twice without keeping its records
(cli/streamed.py, here for files of any size) print exactly what they print reading it whole:
the report under both stack policies, `-h`, `-g`'s DOT and the regression dump, on generated
traces (balanced, unbalanced, thread ids >= 32768 with calls left open, an exit naming another
method, ids the key does not name) and the corpus; the streamed read is taken where it gives
the same numbers and left where it cannot."""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from typing import Unpack

import numpy as np
import pytest

import traceview.cli.streamed as streamed
from support.corpus import readable
from support.synth_args import GenerateArgs
from traceview import load
from traceview.cli import main
from traceview.model import Clock, EventTable
from traceview.synth import generate
from traceview.writer import write


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, bytes, str]:
    buf = io.BytesIO()
    out = io.TextIOWrapper(buf, encoding="utf-8", write_through=True)
    saved, sys.stdout = sys.stdout, out
    try:
        status = main(argv)
        out.flush()
    finally:
        sys.stdout = saved
    return status, buf.getvalue(), capsys.readouterr().err


def both(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`argv` prints the same streamed (every file) and read whole (no file)."""
    with monkeypatch.context() as m:
        m.setattr(streamed, "BIG", 0)
        got = run(argv, capsys)
    with monkeypatch.context() as m:
        m.setattr(streamed, "BIG", 1 << 62)
        want = run(argv, capsys)
    assert got == want


COMMANDS = [
    ["dmtracedump"],
    ["dmtracedump", "--policy", "traceview"],
    ["dmtracedump", "-h"],
    ["dmtracedump", "--clock", "wall"],
    ["-r"],
]


def written(tmp_path: Path, **kw: Unpack[GenerateArgs]) -> Path:
    path = tmp_path / "t.trace"
    write(generate(**kw), path, variant="regular")
    return path


@pytest.mark.parametrize("balanced", [True, False])
@pytest.mark.parametrize("clock", ["dual", "thread-cpu", "wall"])
def test_generated(
    clock: Clock,
    balanced: bool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = written(tmp_path, records=20_000, threads=5, seed=4, clock=clock, balanced=balanced)
    for argv in COMMANDS:
        both([*argv, str(path)], capsys, monkeypatch)
    both(["dmtracedump", "-g", str(tmp_path / "g.dot"), str(path)], capsys, monkeypatch)


@pytest.mark.parametrize("path", readable(), ids=lambda p: p.name)
def test_corpus(
    path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for argv in COMMANDS:
        both([*argv, str(path)], capsys, monkeypatch)


def opened(path: Path, dmtracedump: bool, monkeypatch: pytest.MonkeyPatch) -> bool:
    monkeypatch.setattr(streamed, "BIG", 0)
    args = argparse.Namespace(max_size=None, salvage=False)
    return streamed.open_streamed(str(path), args, None, dmtracedump) is not None


def edited(path: Path, change: str) -> Path:
    """`path`'s trace with one thing changed in its records (14-byte v3 records)."""
    data = bytearray(path.read_bytes())
    magic = data.index(b"SLOW")
    start = magic + int.from_bytes(data[magic + 6 : magic + 8], "little")
    at = start + 14 * 500
    if change == "unknown method":
        data[at + 2 : at + 6] = ((0x3FFFFFF0 << 2) | data[at + 2] & 3).to_bytes(4, "little")
    elif change == "mismatched exit":  # the first exit after record 500 names another method
        while data[at + 2] & 3 == 0:
            at += 14
        mid = int.from_bytes(data[at + 2 : at + 6], "little")
        data[at + 2 : at + 6] = (mid ^ 4).to_bytes(4, "little")
    out = path.with_name(change.replace(" ", "-") + ".trace")
    out.write_bytes(bytes(data))
    return out


def test_where_the_streamed_read_is_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    balanced = written(tmp_path, records=20_000, threads=5, seed=4, balanced=True)
    assert opened(balanced, True, monkeypatch)
    unbalanced = tmp_path / "u.trace"
    write(generate(records=20_000, threads=5, seed=4, balanced=False), unbalanced)
    assert opened(unbalanced, False, monkeypatch)  # frames open at start: counted
    assert not opened(unbalanced, True, monkeypatch)  # dmtracedump's orphans: read whole
    assert not opened(edited(balanced, "unknown method"), False, monkeypatch)
    assert not opened(edited(balanced, "mismatched exit"), False, monkeypatch)


def test_big_thread_ids_with_open_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """dmtracedump never closes the calls a thread id >= 32768 leaves open: read whole."""
    trace = generate(records=20_000, threads=3, seed=6, balanced=True)
    ids = np.array([40000, 40001, 40002][: len(trace.threads)], dtype=np.int64)
    ev = trace.events
    keep = np.ones(len(ev), dtype=bool)
    keep[-50:] = ev.action[-50:] != 1  # the last exits dropped: calls open at the end
    assert ev.cpu is not None and ev.wall is not None
    events = EventTable(
        ev.thread[keep],
        ev.method[keep],
        ev.action[keep],
        ev.cpu[keep],
        ev.wall[keep],
    )
    from dataclasses import replace

    big = replace(trace, threads=replace(trace.threads, id=ids), events=events)
    path = tmp_path / "big.trace"
    write(big, path, variant="regular")
    assert opened(path, False, monkeypatch)
    assert not opened(path, True, monkeypatch)


def test_the_wall_unit_bug(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A dual-clock trace whose wall values are ms (the 2025 ART bug, found once the records
    are read: readers/v1/tables.py scales them by 1000) gets the same wall numbers streamed:
    they were 1000x too small."""
    trace = generate(records=20_000, threads=5, seed=4, clock="dual", balanced=True)
    ev = trace.events
    assert ev.cpu is not None
    ms = (ev.cpu // 1_000_000) * 1000  # ns holding whole ms of µs values: written as ms
    from dataclasses import replace

    buggy = replace(trace, events=replace(ev, wall=ms.astype(np.int64)))
    path = tmp_path / "wall-ms.trace"
    write(buggy, path, variant="regular")
    assert "wall-unit-bug" in {d.code for d in load(path).diagnostics}
    for argv in (["-r"], ["dmtracedump", "--clock", "wall"]):
        both([*argv, str(path)], capsys, monkeypatch)
    assert opened(path, True, monkeypatch)
