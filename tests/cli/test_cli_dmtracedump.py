"""`traceview dmtracedump` prints what Debian's dmtracedump prints, byte for byte, on every
trace it reads whole (generated traces of each clock and naming style, unbalanced ones,
unknown ids, thread ids >= 32768, the corpus), for the report, `-h`, `-o` and `-d`."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path
from typing import Unpack

import pytest

from support.corpus import corpus_files
from support.dmtracedump_run import accepted, debian, needs_debian, ours
from support.synth_args import GenerateArgs
from support.tracebuild import MakeTraceArgs, make_trace
from traceview.model import Clock, Trace
from traceview.synth import generate
from traceview.writer import write

pytestmark = [pytest.mark.dmtracedump, needs_debian]


def _written(tmp_path: Path, name: str, **kw: Unpack[GenerateArgs]) -> Path:
    path = tmp_path / name
    write(generate(**kw), path, variant="regular")
    return path


@pytest.mark.parametrize(
    ("seed", "clock", "threads", "style", "balanced"),
    [
        (1, "dual", 4, "art", True),
        (2, "thread-cpu", 3, "dalvik", True),
        (3, "wall", 2, "art", True),
        (4, "dual", 6, "dalvik", False),  # exits with an empty stack, open calls
        (5, "dual", 3, "art", False),
    ],
)
def test_report_dump_and_html_equal_debian(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    seed: int,
    clock: Clock,
    threads: int,
    style: str,
    balanced: bool,
) -> None:
    path = _written(
        tmp_path,
        "gen.trace",
        records=20_000,
        threads=threads,
        seed=seed,
        clock=clock,
        style=style,
        balanced=balanced,
    )
    for flags in ([], ["-o"], ["-h"]):
        theirs = debian([*flags, path])
        if not accepted(theirs):
            pytest.skip("dmtracedump rejects this trace")
        status, out, _ = ours([*flags, path], capsys)
        assert status == 0
        if flags == ["-h"]:  # our head inlines a sorter; the body is dmtracedump's
            out, theirs_out = out.split(b"</head>", 1)[1], theirs.stdout.split(b"</head>", 1)[1]
            assert out == theirs_out
        else:
            assert out == theirs.stdout, flags


def test_diff_equals_debian(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _written(tmp_path, "a.trace", records=8000, threads=3, seed=11, balanced=True)
    b = _written(tmp_path, "b.trace", records=9000, threads=3, seed=12, balanced=True)
    theirs = debian(["-d", a, b])
    assert accepted(theirs)
    status, out, _ = ours(["-d", a, b], capsys)
    assert status == 0
    assert out == theirs.stdout


def _hand(
    tmp_path: Path, events: list[tuple[int, str, str, int, int]], **kw: Unpack[MakeTraceArgs]
) -> Path:
    path = tmp_path / "hand.trace"
    write(make_trace(events, **kw), path, variant="regular")
    return path


def test_orphan_exits_unknown_ids_and_big_thread_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """dmtracedump's own rules: an exit with an empty stack is a call from time 0; a thread
    id >= 32768 is left out of Total cycles and its open calls stay open."""
    path = _hand(
        tmp_path,
        [
            (1, "enter", "a.A.run", 100, 100),
            (1, "exit", "a.A.run", 130, 140),
            (1, "exit", "a.B.outer", 150, 160),  # empty stack
            (40000, "enter", "a.C.big", 200, 200),
            (40000, "enter", "a.D.inner", 210, 215),
            (40000, "exit", "a.D.inner", 260, 270),
            (1, "enter", "a.A.run", 300, 300),
            (40000, "enter", "a.E.open", 280, 280),
            (1, "enter", "a.A.run", 310, 310),  # recursive, left open
            (40000, "enter", "a.C.big", 290, 295),
        ],
    )
    theirs = debian([path])
    assert accepted(theirs)
    status, out, err = ours([path], capsys)
    assert status == 0
    assert out == theirs.stdout
    assert "32768" in err
    # the engine's policy counts the big thread and opens the orphan at the thread's start
    status, mine, _ = ours(["--policy", "traceview", path], capsys)
    assert status == 0 and mine != out


def test_corpus_traces_dmtracedump_reads_agree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = corpus_files()
    if not files:
        pytest.skip("../shared/corpus not available")
    compared = 0
    for path in files:
        plain = path
        if path.suffix == ".gz":  # dmtracedump reads plain files only
            plain = tmp_path / path.stem
            plain.write_bytes(gzip.decompress(path.read_bytes()))
        theirs = debian([plain])
        if not accepted(theirs):
            continue
        status, out, _ = ours([path], capsys)
        assert status == 0, path
        assert out == theirs.stdout, path  # whole lines: the key line's tail as written
        status, out, _ = ours(["-o", path], capsys)
        assert out == debian(["-o", plain]).stdout, path
        status, out, _ = ours(["-h", path], capsys)
        body = debian(["-h", plain]).stdout.split(b"</head>", 1)[1]
        assert out.split(b"</head>", 1)[1] == body, path
        compared += 1
    assert compared >= 5


def _undeclared(events: list[tuple[int, str, str, int, int]], keep: int) -> Trace:
    """A hand-made trace whose methods after the first `keep` are missing from the key."""
    import dataclasses

    import numpy as np

    trace = make_trace(events)
    declared = np.arange(len(trace.methods)) < keep
    return dataclasses.replace(trace, methods=dataclasses.replace(trace.methods, declared=declared))


NESTED = [
    (1, "enter", "a.A.x", 0, 0),
    (1, "enter", "a.B.y", 2, 2),
    (1, "enter", "a.C.z", 3, 3),
    (1, "exit", "a.C.z", 4, 4),
    (1, "exit", "a.B.y", 6, 6),
    (1, "exit", "a.A.x", 9, 9),
    (1, "enter", "a.B.y", 10, 10),
    (1, "exit", "a.B.y", 12, 12),
]
RECURSIVE = [
    (1, "enter", "a.A.x", 0, 0),
    (1, "enter", "a.A.x", 2, 2),
    (1, "enter", "a.B.y", 3, 3),
    (1, "exit", "a.B.y", 4, 4),
    (1, "exit", "a.A.x", 6, 6),
    (2, "enter", "a.B.y", 1, 1),
    (1, "exit", "a.A.x", 9, 9),
    (2, "exit", "a.B.y", 12, 12),
]


@pytest.mark.parametrize(
    "case",
    ["zero-time", "two-unknown-ids", "recursion"],
)
def test_hand_made_edge_cases_equal_debian(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    """A trace of zero length (0/0 percentages print as glibc's `-nan`), two ids missing
    from the key (one `(unknown)`), and recursion across two threads."""
    builders: dict[str, Callable[[], Trace]] = {
        "zero-time": lambda: make_trace([(1, "enter", "a.A.x", 5, 5), (1, "exit", "a.A.x", 5, 5)]),
        "two-unknown-ids": lambda: _undeclared(NESTED, 1),
        "recursion": lambda: make_trace(RECURSIVE),
    }
    trace = builders[case]()
    path = tmp_path / f"{case}.trace"
    write(trace, path, variant="regular")
    for flags in ([], ["-o"]):
        theirs = debian([*flags, path])
        assert accepted(theirs)
        status, out, _ = ours([*flags, path], capsys)
        assert status == 0
        assert out == theirs.stdout
