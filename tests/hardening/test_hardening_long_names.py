"""Long method names (issue 18): memory follows the names' total bytes, never methods ×
longest name (a fixed-width numpy string array: 500 methods and one 200,000-character name
asked for 400 MB, 2,000 methods and a 10^6-character one for 8 GB), and a folded file, whose
every line repeats its path, is written holding one line, not the whole file.

Measured in-process with tracemalloc (numpy's buffers are traced): a bound on bytes allocated,
no timing."""

from __future__ import annotations

import contextlib
import io
import tracemalloc
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import traceview
from support.tracebuild import make_trace
from traceview.analysis import Session
from traceview.analysis.layout.flame import KINDS
from traceview.cli import main
from traceview.writer import write

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

METHODS = 500
LONG = 200_000  # characters of one method's name; the others are ~12
BOUND = 48 << 20  # bytes: the names hold 0.2 MB, a fixed-width array of them 400 MB


def long_name_events(methods: int, long: int) -> list[tuple[int, str, str, int, int]]:
    """`run` calling `methods` methods in turn, the first with a `long`-character name."""
    events = [(1, "enter", "com.a.Main.run", 0, 0)]
    t = 1
    for i in range(methods):
        name = f"com.a.C{i}.m" + ("x" * long if i == 0 else "")
        events += [(1, "enter", name, t, t), (1, "exit", name, t + 1, t + 2)]
        t += 2
    return [*events, (1, "exit", "com.a.Main.run", t, t + 1)]


@pytest.fixture(scope="module")
def long_trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("long") / "long.trace"
    write(make_trace(long_name_events(METHODS, LONG)), path)
    return path


class Counter(io.RawIOBase):
    """A stdout that counts bytes and keeps none (captured output would count as memory)."""

    size = 0

    def writable(self) -> bool:
        return True

    def write(self, data: ReadableBuffer) -> int:
        n = len(memoryview(data))
        self.size += n
        return n


def run(argv: list[str]) -> tuple[int, int]:
    """(exit status, bytes written to stdout) of one command run in-process."""
    raw = Counter()
    stdout = io.TextIOWrapper(io.BufferedWriter(raw), encoding="utf-8")
    with contextlib.redirect_stdout(stdout):  # in the test body: pytest's capture resets it
        status = main(argv)
        stdout.flush()
    return status, raw.size


def peak_of(argv: list[str]) -> tuple[int, int, int]:
    """(exit status, peak bytes allocated, bytes written to stdout) of one command run
    in-process (run once before, so imports and compiled kernels are not counted)."""
    assert run(argv)[0] == 0
    tracemalloc.start()
    try:
        status, size = run(argv)
        return status, tracemalloc.get_traced_memory()[1], size
    finally:
        tracemalloc.stop()


def commands(trace: Path, out: Path) -> dict[str, list[str]]:
    t = str(trace)
    every = {
        "info": ["info", t],
        "stats": ["stats", t],
        "stats-json": ["stats", "--json", "--clock", "cpu", t],
        "tree": ["tree", t],
        "dump": ["-r", t],
        "dmtracedump": ["dmtracedump", t],
        "dmtracedump-o": ["dmtracedump", "-o", t],
        "dmtracedump-h": ["dmtracedump", "-h", t],
        "report": ["report", t, "-o", str(out / "r.html")],
        "diff": ["diff", t, "--vs", t],
    }
    for f in ("folded", "svg", "chrome", "speedscope", "pprof"):
        every[f"export-{f}"] = ["export", t, "-f", f, "-o", str(out / f"x.{f}")]
    return every


NAMES = sorted(commands(Path("t"), Path("o")))


@pytest.mark.parametrize("name", NAMES)
def test_every_command_memory_follows_the_names(
    name: str, long_trace: Path, tmp_path: Path
) -> None:
    status, peak, _ = peak_of(commands(long_trace, tmp_path)[name])
    assert status == 0
    assert peak < BOUND, f"{name}: {peak >> 20} MiB allocated for 0.2 MB of names"


@pytest.mark.parametrize("kind", KINDS)
def test_flame_layout_of_long_names(long_trace: Path, kind: str) -> None:
    session = Session(traceview.load(long_trace))
    q = session.query(clock="wall")
    session.top_down(q), session.bottom_up(q)  # the trees are the session's, counted apart
    tracemalloc.start()
    try:
        layout = session.flame(q, kind)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(layout.method) == METHODS + 1 or kind == "bottomup"
    assert peak < BOUND, f"{peak >> 20} MiB to lay out {METHODS} methods"


def test_folded_holds_one_line_not_the_file(tmp_path: Path) -> None:
    """A 200-deep chain of 2,000-character names: each line repeats its path, so the file is
    40 MB (the format's size); writing it holds one path and a 1 MB chunk."""
    depth, width = 200, 2000
    names = [f"com.a.C{i}.m" + "x" * width for i in range(depth)]
    events = [(1, "enter", n, k, k) for k, n in enumerate(names)]
    events += [(1, "exit", n, depth + k, depth + k) for k, n in enumerate(reversed(names))]
    path = tmp_path / "deep.trace"
    write(make_trace(events), path)
    status, peak, size = peak_of(["export", str(path), "-f", "folded", "-o", "-"])
    assert status == 0
    assert size > depth * (depth + 1) // 2 * width
    assert peak < size // 4, f"{peak >> 20} MiB held to write {size >> 20} MiB"
