"""`traceview info`: text and JSON output, and one-line errors with exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from support.corpus import corpus_files, corpus_path
from traceview.cli import main


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "traceview", *args], capture_output=True, text=True, check=False
    )


def test_info_json_keys(capsys: pytest.CaptureFixture[str]) -> None:
    path = corpus_path("aosp-perflib/basic.trace")
    assert main(["info", str(path), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    for key in ("variant", "version", "clock", "vm", "pid", "records", "threads", "methods"):
        assert key in info
    assert info["variant"] == "regular"
    assert info["version"] == 3
    assert info["clock"] == "dual"
    assert info["vm"] == "dalvik"
    assert info["records"] == 9
    assert {"id", "name", "records"} <= set(info["threads"][0])
    assert sum(t["records"] for t in info["threads"]) == 9
    assert isinstance(info["options"], dict) and info["options"]["vm"] == "dalvik"
    assert all({"code", "message"} <= set(d) for d in info["diagnostics"])


def test_info_text_names_threads(capsys: pytest.CaptureFixture[str]) -> None:
    path = corpus_path("aosp-perflib/basic.trace")
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "variant     regular" in out
    assert "main" in out


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_info_every_corpus_file(path: Path) -> None:
    """Each corpus file gives a JSON summary, or one line on stderr and exit status 2."""
    result = _run("info", str(path), "--json")
    if result.returncode == 0:
        json.loads(result.stdout)
    else:
        assert result.returncode == 2, result.stderr
        assert result.stderr.count("\n") == 1, result.stderr
        assert "Traceback" not in result.stderr
        assert str(path) in result.stderr


def test_missing_file_is_one_line(tmp_path: Path) -> None:
    result = _run("info", str(tmp_path / "nope.trace"))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "nope.trace" in result.stderr


def test_random_bytes_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "random.trace"
    bad.write_bytes(bytes(range(256)) * 4)
    result = _run("info", str(bad))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "random.trace" in result.stderr
    assert "Traceback" not in result.stderr
    assert bad.read_bytes() == bytes(range(256)) * 4


def test_info_shows_simpleperf_event_types(capsys: pytest.CaptureFixture[str]) -> None:
    path = corpus_path("firefox-profiler/simpleperf-cpu-clock.trace")
    assert main(["info", str(path)]) == 0
    text = capsys.readouterr().out
    assert "variant     simpleperf (version 1 = 0x1)" in text
    assert "events      cpu-clock, sched:sched_switch" in text
    assert main(["info", str(path), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["event_types"] == ["cpu-clock", "sched:sched_switch"]
    assert info["options"]["samples"] == "1234"


def test_stats_text_names_native_frames(capsys: pytest.CaptureFixture[str]) -> None:
    path = corpus_path("grishberg-simpleperf-parser/simpleperf_callchain.trace")
    assert main(["stats", str(path), "--limit", "40"]) == 0
    text = capsys.readouterr().out
    assert "NativeEngine::DoFrame(int) (libgame.so)" in text
    assert "(libgame.so)." not in text and "(libc.so)." not in text
