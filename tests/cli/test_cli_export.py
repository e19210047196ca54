"""`traceview export`: the format from --format or the suffix, -o - to stdout, the shared
selection options, Parquet as a directory, and one-line errors."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest

from traceview.cli import main
from traceview.synth import generate
from traceview.writer import write


@pytest.fixture(scope="module")
def trace_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("export") / "t.trace"
    write(generate(records=4000, threads=3, seed=3), str(path))
    return path


@pytest.mark.parametrize(
    ("name", "check"),
    [
        ("out.folded", lambda b: b.decode().splitlines()[0].rpartition(" ")[2].isdigit()),
        ("out.svg", lambda b: b.startswith(b"<?xml") and b"<svg" in b),
        ("out.json", lambda b: "traceEvents" in json.loads(b)),
        ("out.speedscope.json", lambda b: "$schema" in json.loads(b)),
        ("out.pb.gz", lambda b: len(gzip.decompress(b)) > 0),
    ],
)
def test_format_from_the_suffix(trace_path: Path, tmp_path: Path, name: str, check: object) -> None:
    out = tmp_path / name
    assert main(["export", str(trace_path), "-o", str(out)]) == 0
    assert callable(check) and check(out.read_bytes())


def test_stdout_with_format_and_selection(
    trace_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "export",
            str(trace_path),
            "-o",
            "-",
            "--format",
            "folded",
            "--thread",
            "main",
            "--clock",
            "wall",
            "--from",
            "10ms",
            "--to",
            "40ms",
        ]
    )
    assert code == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(line.startswith("main [") for line in lines)


def test_merge_threads_drops_the_thread_frames(
    trace_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", str(trace_path), "-o", "-", "-f", "folded", "--merge-threads"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and not any(" [" in line.split(";", 1)[0] for line in lines)


def test_parquet_writes_a_directory(trace_path: Path, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "t.parquet"
    assert main(["export", str(trace_path), "-o", str(out)]) == 0
    tables = ["calls", "edges", "methods", "profile", "threads", "traces"]
    assert sorted(p.name for p in out.iterdir()) == tables
    assert main(["export", str(trace_path), "-o", str(out), "--thread", "main"]) == 0
    assert sorted(p.name for p in out.iterdir()) == tables  # replaced, no temporary files
    traces = pq.read_table(out / "traces").to_pylist()
    want = hashlib.sha256(trace_path.read_bytes()).hexdigest()  # the id is the bytes' SHA-256
    assert [t["trace_id"] for t in traces] == [want] and traces[0]["name"] == trace_path.name
    for table in tables:
        assert set(pq.read_table(out / table).column("trace_id").to_pylist()) <= {want}


def test_user_errors_are_one_line(
    trace_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = [
        ["export", str(trace_path), "-o", str(tmp_path / "x.unknownsuffix")],
        ["export", str(trace_path), "-o", "-"],
        ["export", str(trace_path), "-o", str(tmp_path / "x"), "--format", "nope"],
        ["export", str(trace_path)],
        ["export", str(trace_path), "-o", "-", "--format", "parquet"],
        ["export", str(trace_path), "-o", "-", "-f", "folded", "--thread", "no-such-thread"],
    ]
    for argv in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("traceview: "), (argv, err)
    assert not list(tmp_path.iterdir())
