"""`traceview -r`, `traceview stats` and `traceview tree` called through their main(argv)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.tracebuild import make_trace
from traceview.cli import dump, stats, tree
from traceview.cli import main as cli_main
from traceview.writer import write

EVENTS = [
    (1, "enter", "com.a.Main.run", 0, 0),
    (1, "enter", "com.a.Main.work", 1, 2),
    (2, "enter", "com.b.Job.go", 0, 0),
    (1, "exit", "com.a.Main.work", 5, 9),
    (2, "exit", "com.b.Job.go", 3, 3),
    (1, "exit", "com.a.Main.run", 6, 12),
]


@pytest.fixture
def trace_file(tmp_path: Path) -> Path:
    trace = make_trace(EVENTS, names={1: "main", 2: "pool-1\tthread\n2"})
    path = tmp_path / "t.trace"
    write(trace, path, variant="streaming")
    return path


def test_regress_dump_is_plain_and_stable(
    trace_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_main(["-r", str(trace_file)]) == 0
    first = capsys.readouterr().out
    assert dump.main([str(trace_file)]) == 0
    assert capsys.readouterr().out == first
    lines = first.splitlines()
    assert lines[0] == "totalCpuTime 9us" and lines[1] == "totalRealTime 15us"
    assert "Method Stats:" in lines
    stats_at = lines.index("Method Stats:")
    rows = lines[stats_at + 2 :]
    assert rows[0].split() == ["0", "9", "0", "15", "2+0", "(toplevel)"]
    assert rows[1].split()[:5] == ["2", "6", "5", "12", "1+0"]
    assert rows[1].endswith("com.a.Main.run ()V")
    assert "\x1b" not in first and "\t" not in first  # no colours, names escaped


def test_regress_timings_on_stderr(
    trace_file: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRACEVIEW_TIMINGS", "1")
    assert dump.main([str(trace_file)]) == 0
    err = capsys.readouterr().err
    assert "load=" in err and "calls=" in err and "profile=" in err and "output=" in err


def test_stats_json(trace_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert stats.main([str(trace_file), "--json", "--sort", "incl-wall"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["estimates"] is False
    assert [m["name"] for m in doc["methods"]] == ["run", "work", "go"]
    run = doc["methods"][0]
    assert run["class"] == "com.a.Main" and run["signature"] == "()V"
    assert (run["calls"], run["recursive_calls"]) == (1, 0)
    assert (run["incl_cpu_us"], run["excl_cpu_us"]) == (6.0, 2.0)
    assert (run["incl_wall_us"], run["excl_wall_us"], run["off_cpu_us"]) == (12.0, 5.0, 6.0)
    assert [t["calls"] for t in doc["threads"]] == [2, 1]


def test_stats_thread_filter_limit_and_table(
    trace_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert stats.main([str(trace_file), "--json", "--thread", "main", "--limit", "1"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [m["name"] for m in doc["methods"]] == ["run"]
    assert stats.main([str(trace_file), "--thread", "2"]) == 0
    assert "go" in capsys.readouterr().out


def test_stats_unknown_thread_is_one_line_exit_2(
    trace_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_main(["stats", str(trace_file), "--thread", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope" in err


def test_wall_only_trace_shows_dashes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = make_trace(
        [(1, "enter", "a.A.f", None, 0), (1, "exit", "a.A.f", None, 4)], clock="wall"
    )
    path = tmp_path / "w.trace"
    write(trace, path, variant="regular")
    assert dump.main([str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("totalCpuTime -\ntotalRealTime 4us\n")
    assert stats.main([str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["methods"][0]["incl_cpu_us"] is None
    assert cli_main(["stats", str(path), "--clock", "cpu"]) == 2


def test_tree_text_and_json(trace_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert tree.main([str(trace_file)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "thread main [1]"
    assert out[2].endswith("com.a.Main.run ()V") and out[3].endswith("  com.a.Main.work ()V")
    assert tree.main([str(trace_file), "--json", "--max-depth", "0"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [n["method"] for n in doc["roots"]] == ["com.a.Main.run ()V"]
    assert doc["roots"][0]["incl_wall_us"] == 12.0 and doc["roots"][0]["children"] == []
    assert [t["name"] for t in doc["threads"]] == ["main"]
    assert tree.main([str(trace_file), "--json"]) == 0
    deep = json.loads(capsys.readouterr().out)
    assert [n["method"] for n in deep["roots"][0]["children"]] == ["com.a.Main.work ()V"]
    assert cli_main(["tree", str(trace_file), "--thread", "nope"]) == 2
