"""`traceview convert`: streaming -> regular by default, every V1 target, one printed line,
refusing to overwrite its input, one-line errors with exit status 2."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from traceview import load
from traceview.cli import convert
from traceview.cli import main as cli_main
from traceview.synth import generate
from traceview.writer import write


@pytest.fixture
def streaming(tmp_path: Path) -> Path:
    path = tmp_path / "s.trace"
    write(generate(records=3000, threads=5, seed=6), path, variant="streaming")
    return path


def test_streaming_to_regular(
    streaming: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.trace"
    assert convert.main([str(streaming), str(out)]) == 0
    line = capsys.readouterr().out
    assert line.count("\n") == 1 and "r.trace" in line and "regular" in line
    assert out.read_bytes().startswith(b"*version\n3\n")
    a, b = load(streaming), load(out)
    b.validate()
    assert b.header.variant == "regular"
    assert np.array_equal(a.events.action, b.events.action)
    assert a.events.wall is not None and b.events.wall is not None
    assert np.array_equal(a.events.wall, b.events.wall)


@pytest.mark.parametrize("target", ["split", "streaming-nosummary", "data-only", "streaming"])
def test_other_targets(streaming: Path, tmp_path: Path, target: str) -> None:
    out = tmp_path / "o.trace"
    assert convert.main([str(streaming), str(out), "--to", target]) == 0
    back = load(tmp_path / "o" if target == "split" else out)
    back.validate()
    assert len(back.events) == 3000


def test_clock_version_and_style(streaming: Path, tmp_path: Path) -> None:
    out = tmp_path / "w.trace"
    args = [str(streaming), str(out), "--clock", "wall", "--version", "1", "--style", "dalvik"]
    assert convert.main(args) == 0
    back = load(out)
    back.validate()
    assert (back.header.version, back.header.clock, back.header.vm) == (1, "wall", "dalvik")
    assert back.events.cpu is None and "/" in back.methods.class_name[0]


def test_refuses_to_overwrite_input(streaming: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = streaming.read_bytes()
    assert convert.main([str(streaming), str(streaming)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "refusing" in err
    assert streaming.read_bytes() == before
    # the split target `s.key`/`s.data` may not be the input either
    key = streaming.with_suffix(".key")
    key.write_bytes(before)
    assert convert.main([str(key), str(streaming.with_suffix("")), "--to", "split"]) == 2
    # nor the pair named by its base, written as a regular file over its .key
    write(load(streaming), streaming.with_name("p"), variant="split")
    pair = streaming.with_name("p")
    assert convert.main([str(pair), str(pair.with_suffix(".key"))]) == 2
    assert convert.main([str(pair), str(pair.with_name("q")), "--to", "split"]) == 0


@pytest.mark.parametrize("content", [b"junk\n", b"", b"*version\n3\n"])
def test_bad_input_is_one_line(
    tmp_path: Path, content: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.trace"
    bad.write_bytes(content)
    assert convert.main([str(bad), str(tmp_path / "out.trace")]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert "bad.trace" in captured.err
    assert not (tmp_path / "out.trace").exists()


def test_missing_input_and_impossible_choice(
    tmp_path: Path, streaming: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert convert.main([str(tmp_path / "nope.trace"), str(tmp_path / "x.trace")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    args = [str(streaming), str(tmp_path / "y.trace"), "--version", "2"]  # dual needs v3
    assert convert.main(args) == 2
    assert "cannot hold" in capsys.readouterr().err


def test_dispatcher_runs_convert(streaming: Path, tmp_path: Path) -> None:
    assert cli_main(["convert", str(streaming), str(tmp_path / "d.trace")]) == 0


@pytest.mark.parametrize("target", ["v2", "v2-streaming"])
def test_to_v2_and_back(streaming: Path, tmp_path: Path, target: str) -> None:
    pytest.importorskip("traceview.writer.v2")
    v2 = tmp_path / "v2.trace"
    assert convert.main([str(streaming), str(v2), "--to", target, "--generation", "alpha"]) == 0
    assert load(v2).header.variant == target
    assert load(v2).header.entry_format == "alpha"
    back = tmp_path / "back.trace"
    assert convert.main([str(v2), str(back)]) == 0
    trace = load(back)
    trace.validate()
    assert trace.header.variant == "regular" and len(trace.events) == 3000
