"""Each format takes its own options through the CLI: `.pb` is pprof, `export` opens the trace
through the one open path (`--max-size` refuses as in every command), and a flag the format
does not take is refused in one line before the trace is read."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from support.refusal import refused
from traceview.cli import main
from traceview.synth import generate
from traceview.writer import write


@pytest.fixture(scope="module")
def trace_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("formats") / "t.trace"
    write(generate(records=4000, threads=3, seed=3), str(path))
    return path


def test_pb_is_pprof(trace_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x.pb"
    assert main(["export", str(trace_path), "-o", str(out)]) == 0
    assert "(pprof)" in capsys.readouterr().err
    assert len(gzip.decompress(out.read_bytes())) > 0


def test_export_honours_max_size_like_every_command(
    trace_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    small = ["--max-size", "1K"]
    theirs = refused(["stats", str(trace_path), *small], capsys)
    ours = refused(["export", str(trace_path), "-o", str(tmp_path / "x.folded"), *small], capsys)
    assert ours == theirs and "max_size" in ours
    assert not list(tmp_path.iterdir())


def test_merge_threads_is_refused_by_speedscope(
    trace_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "x.speedscope.json"
    line = refused(["export", str(trace_path), "-o", str(out), "--merge-threads"], capsys)
    assert line == (
        "traceview: export: --merge-threads does not apply to speedscope (it takes: --title)"
    )
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["export", "-o", "-", "-f", "folded", "--title", "T"], "--title does not apply to folded"),
        (["export", "-o", "-", "-f", "dmtracedump", "--merge-threads"], "to dmtracedump"),
        (["export", "-o", "-", "-f", "diff"], "diff compares traces"),
        (["export", "-o", "-", "-f", "dmtracedump-diff"], "dmtracedump-diff compares traces"),
        (["dmtracedump", "-o", "--policy", "traceview"], "--policy does not apply"),
    ],
)
def test_flags_a_format_does_not_take_are_one_line(
    trace_path: Path, argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert words in refused([argv[0], str(trace_path), *argv[1:]], capsys)


def test_diff_json_takes_no_limit(trace_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["diff", str(trace_path), "--vs", str(trace_path), "--json", "--limit", "3"]
    assert "--limit does not apply to diff-json (it takes no options)" in refused(argv, capsys)


def test_flags_the_format_takes_still_apply(
    trace_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", str(trace_path), "-o", "-", "-f", "chrome", "--title", "tïtle"]) == 0
    events = json.loads(capsys.readouterr().out)["traceEvents"]
    assert events[0]["name"] == "process_name" and events[0]["args"]["name"] == "tïtle"
    # dmtracedump's own -s and -t are taken with any output, as dmtracedump takes them
    assert main(["dmtracedump", "-s", "https://x/", "-t", "5", str(trace_path)]) == 0
    assert capsys.readouterr().out.startswith("\n" + "=" * 70)
