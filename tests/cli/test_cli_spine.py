"""The shared CLI machinery (cli/options.py, cli/errors.py) and the defects it fixed: one
diagnostics list, one thread rule, names that survive any bytes on any locale, one error path,
a quiet closed pipe, units on --from/--to, -o FILE."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.corpus import corpus_path
from support.report_data import report_answers
from support.tracebuild import make_trace
from traceview.analysis import Session
from traceview.cli import main as cli_main
from traceview.cli.options import duration_ns
from traceview.writer import write

HANG_GUARD = 300  # seconds: only stops a stuck test; no time is asserted

SRC = Path(__file__).resolve().parents[2] / "src"
BAD = "a.Bad\udcff\udcfe"  # a class name whose bytes are not UTF-8 (kept as surrogate escapes)


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """`python -m traceview ARGS` in a fresh interpreter (stdout/stderr as bytes)."""
    full = {**os.environ, "PYTHONPATH": str(SRC), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "traceview", *args], capture_output=True, env=full, timeout=120
    )


@pytest.fixture
def bad_names(tmp_path: Path) -> Path:
    ev = [
        (1, "enter", f"{BAD}.run", 0, 0),
        (1, "enter", "a.B.c\x1b[31m", 1, 2),
        (1, "exit", "a.B.c\x1b[31m", 2, 4),
        (1, "exit", f"{BAD}.run", 3, 6),
    ]
    path = tmp_path / "bad.trace"
    write(make_trace(ev, names={1: "main\udcff"}), path)
    return path


ARGS = [["info"], ["info", "--json"], ["stats"], ["stats", "--json"], ["tree"], ["tree", "--json"]]


@pytest.mark.parametrize("args", [*ARGS, ["-r"]])
def test_undecodable_names_on_a_strict_utf8_terminal(bad_names: Path, args: list[str]) -> None:
    """Before: every command raised UnicodeEncodeError under PYTHONIOENCODING=utf-8:strict."""
    r = run_cli(*args, str(bad_names), env={"PYTHONIOENCODING": "utf-8:strict"})
    assert r.returncode == 0, r.stderr.decode()
    out = r.stdout.decode("utf-8")  # valid UTF-8
    needle = "main\\xff" if args[0] == "info" else "a.Bad\\xff\\xfe"
    if "--json" in args:
        json.loads(out)
        needle = needle.replace("\\", "\\\\")  # a backslash is escaped in JSON text
    assert needle in out
    assert "\x1b" not in out  # terminal escapes from a name never reach the terminal


def test_undecodable_names_on_an_ascii_terminal(bad_names: Path) -> None:
    r = run_cli("stats", str(bad_names), env={"PYTHONIOENCODING": "ascii:strict"})
    assert r.returncode == 0, r.stderr.decode()
    assert "\\xff" in r.stdout.decode("ascii")


def test_report_and_viewer_answers_with_undecodable_names(bad_names: Path, tmp_path: Path) -> None:
    """Before: `traceview report` always raised UnicodeEncodeError and /api/trace answered 400."""
    out = tmp_path / "r.html"
    assert cli_main(["report", str(bad_names), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    labels = report_answers(page)["/api/methods"]["label"]  # the packed JSON data block
    assert any(label.startswith("a.Bad\\xff\\xfe.run") for label in labels)
    from starlette.testclient import TestClient

    from traceview import load
    from traceview.viewer.app import create_app

    client = TestClient(create_app(Session(load(bad_names))), base_url="http://127.0.0.1")
    r = client.get("/api/trace")
    assert r.status_code == 200 and r.json()["threads"][0]["name"] == "main\\xff"
    labels = client.get("/api/methods").json()["label"]  # the same escape live
    assert any(label.startswith("a.Bad\\xff\\xfe.run") for label in labels)


def test_info_lists_the_engines_repairs(capsys: pytest.CaptureFixture[str]) -> None:
    """Before: `info` said "diagnostics none" on this trace while -r, stats and the viewer
    reported exits without enters and calls open at the end."""
    path = corpus_path("aosp-perflib/basic.trace")
    assert cli_main(["info", "--json", str(path)]) == 0
    codes = {d["code"] for d in json.loads(capsys.readouterr().out)["diagnostics"]}
    assert {"exit-without-enter", "open-at-end"} <= codes
    for args in (["-r"], ["stats", "--json"]):
        assert cli_main([*args, str(path)]) == 0
        out = capsys.readouterr().out
        assert "exit-without-enter" in out and "open-at-end" in out


def test_a_shared_thread_name_selects_every_thread_and_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Before: `tree --thread NAME` silently picked one of the two threads of that name."""
    path = corpus_path("aosp-perflib-studio/char_2_bytes.trace")
    assert cli_main(["tree", "--json", "--thread", "OkHttp Dispatcher", str(path)]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert len(doc["threads"]) == 2 and {t["name"] for t in doc["threads"]} == {"OkHttp Dispatcher"}
    assert "names 2 threads" in captured.err
    assert cli_main(["stats", "--json", "--thread", "OkHttp Dispatcher", str(path)]) == 0
    stats_doc = json.loads(capsys.readouterr().out)
    assert sorted(t["row"] for t in stats_doc["threads"]) == sorted(
        t["row"] for t in doc["threads"]
    )


def test_unknown_thread_lists_close_matches(capsys: pytest.CaptureFixture[str]) -> None:
    path = corpus_path("aosp-perflib-studio/char_2_bytes.trace")
    assert cli_main(["stats", "--thread", "OkHttp Dispatch", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "did you mean 'OkHttp Dispatcher'" in err


def test_one_main_thread_rule_for_tree_and_viewer(tmp_path: Path) -> None:
    """Before: `tree` took the thread named main, the viewer the thread whose id is the pid."""
    ev = [
        (7, "enter", "a.A.busy", 0, 0),
        (7, "exit", "a.A.busy", 900, 900),
        (1, "enter", "a.A.ui", 0, 0),
        (1, "exit", "a.A.ui", 5, 5),
    ]
    trace = make_trace(ev, names={7: "worker", 1: "main"})
    s = Session(trace)
    from traceview.viewer.answers import trace_answer

    viewer_main = [t["row"] for t in trace_answer(s)["threads"] if t["main"]]
    assert viewer_main == [s.main_thread()] == [trace.threads.name.index("main")]
    q = s.query(threads=[s.main_thread()])
    assert s.top_down(q).method.tolist() == [trace.methods.name.index("ui")]


def test_closed_pipe_ends_quietly() -> None:
    """`traceview stats x | head`: exit 0, nothing on stderr."""
    path = corpus_path("zhkl0228-tracereader/test1.trace")
    cmd = [sys.executable, "-m", "traceview", "-r", str(path)]
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read()
        code = proc.wait(timeout=HANG_GUARD)  # a stuck command fails the test; no time asserted
        assert code == 0
    assert err == b""


def test_errors_are_one_line_with_an_escaped_path(tmp_path: Path) -> None:
    odd = tmp_path / "x\nforged: line\x1b[2J.trace"
    odd.write_bytes(b"SLOW" + b"\0" * 3)
    r = run_cli("stats", str(odd))
    assert r.returncode == 2
    err = r.stderr.decode()
    assert err.count("\n") == 1 and "\x1b" not in err and "Traceback" not in err
    missing = run_cli("info", str(tmp_path / "nope.trace"))
    assert missing.returncode == 2 and missing.stderr.decode().count("\n") == 1


@pytest.mark.parametrize(
    ("text", "ns"),
    [("1.5s", 1_500_000_000), ("300ms", 300_000_000), ("20us", 20_000), ("0", 0), ("7ns", 7)],
)
def test_durations_with_units(text: str, ns: int) -> None:
    assert duration_ns(text) == ns


def test_range_options_and_output_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ev = [
        (1, "enter", "a.L.loop", 0, 0),
        (1, "enter", "a.A.work", 10_000, 10_000),
        (1, "exit", "a.A.work", 90_000, 90_000),
        (1, "exit", "a.L.loop", 100_000, 100_000),
    ]
    path = tmp_path / "r.trace"
    write(make_trace(ev), path)
    out = tmp_path / "s.json"
    args = ["stats", "--json", "--from", "40ms", "--to", "60ms", "--clock", "wall"]
    assert cli_main([*args, str(path), "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    rows = {m["name"]: m for m in doc["methods"]}
    assert rows["loop"]["excl_wall_us"] == 0 and rows["work"]["excl_wall_us"] == 20_000
    assert doc["selection"]["time_range"] == {"from_us": 40_000, "to_us": 60_000, "clock": "wall"}
    assert cli_main(["stats", "--from", "40", str(path)]) == 2  # a unit is required
    assert "unit" in capsys.readouterr().err
