"""The commands on Android 16 dumps and ANR reports: `traceview anr` (open stacks at the dump,
slow calls with callers), `info` (axis, dump end, monotonic offset, processes), `--process`
on every command, `convert` (a long-running dump to a regular trace in µs; an all-methods
dump refused), and an all-methods dump's durations absent (null / blank), never invented."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from traceview.cli import main
from traceview.readers import load
from traceview.synth import generate
from traceview.writer.lowoverhead import dump_bytes
from traceview.writer.lowoverhead.anr import ProcessText, anr_report
from traceview.writer.lowoverhead.art import ArtRun, Method

HZ = 24_576_000
LOOP = Method(0x7000_0000, "android.os.Looper", "loop")
HANDLE = Method(0x7000_0010, "com.app.Main", "onClick", "(Landroid/view/View;)V")
SLOW = Method(0x7000_0020, "com.app.Db", "query")
FAST = Method(0x7000_0030, "com.app.Ui", "draw")
WAIT = Method(0x7000_0040, "com.app.Net", "fetch")


def hung_app() -> bytes:
    """main: Looper.loop (on the stack at the start) runs onClick, which makes a 2 s query
    and many short draws, then hangs in a fetch still open at the dump; a worker thread."""
    run, t = ArtRun(), 10**11
    run.start(4321, "main", [LOOP], t)
    run.start(4330, "worker", [], t)
    run.enter(4321, HANDLE, t := t + HZ // 100)
    run.enter(4321, SLOW, t := t + HZ // 100)
    run.exit(4321, t := t + 2 * HZ)  # 2 s: kept
    for _ in range(50):
        run.enter(4321, FAST, t := t + HZ // 1000)
        run.exit(4321, t := t + HZ // 1000)  # 1 ms: erased by ART
    run.enter(4321, WAIT, t := t + HZ // 100)
    run.enter(4330, SLOW, t + 1)
    run.exit(4330, t + HZ // 2)  # 0.5 s: kept
    return run.dump(t + 5 * HZ, to="anr")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("lowoverhead")
    paths = {
        "anr": root / "anr_2025-07-01-12-00-00-123",
        "all": root / "all.bin",
    }
    paths["anr"].write_bytes(
        anr_report(
            [
                ProcessText(4321, "com.example.app", hung_app()),
                ProcessText(99, "com.other", hung_app()),
            ]
        )
    )
    trace = generate(1500, threads=2, seed=4, clock="wall", balanced=True)
    paths["all"].write_bytes(dump_bytes(trace, mode="all"))
    return paths


def run_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(argv) == 0
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


def test_anr_lists_the_open_stack_then_the_slow_calls(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    doc = run_json(["anr", str(files["anr"]), "--json"], capsys)
    assert doc["process"] == {"name": "com.example.app", "pid": 4321} and doc["times"]
    main_stack = doc["open"][0]
    # the newest ART names no thread in a long-running dump: the main one is the pid's
    assert main_stack["thread"] == {"id": 4321, "name": "[4321]", "main": True}
    names = [f["method"] for f in main_stack["frames"]]
    assert names == [
        "android.os.Looper.loop ()V",
        "com.app.Main.onClick (Landroid/view/View;)V",
        "com.app.Net.fetch ()V",
    ]
    frames = main_stack["frames"]
    # still running at the dump: each time is how long it had run by then, a lower bound
    assert all(f["open"] and f["at_least"] for s in doc["open"] for f in s["frames"])
    assert frames[0]["before_tracing"] and not frames[2]["before_tracing"]
    assert frames[2]["open_us"] == pytest.approx(5e6, rel=1e-6)  # open until the dump
    assert frames[2]["start_us"] == pytest.approx(doc["dump_us"] - 5e6, abs=0.001)
    slow = [(c["method"], round(c["duration_us"] / 1e6, 2)) for c in doc["slow"]]
    assert slow == [("com.app.Db.query ()V", 2.0), ("com.app.Db.query ()V", 0.5)]
    assert doc["slow"][0]["callers"] == [
        "com.app.Main.onClick (Landroid/view/View;)V",
        "android.os.Looper.loop ()V",
    ]
    assert doc["slow_total"] == 2 and doc["threshold_us"] == pytest.approx(341_333.333)
    text = (main(["anr", str(files["anr"])]), capsys.readouterr().out)[1]
    assert "process com.example.app (pid 4321)" in text and "  [4321] (main)" in text
    assert "calls of 0.341 s or more: 2" in text and "at android.os.Looper.loop ()V" in text


def test_anr_says_the_open_calls_were_still_running(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Calls open at the dump had not ended: the text labels every one of their times "≥"
    (at least), never as a finished duration, and says they were still running."""
    assert main(["anr", str(files["anr"])]) == 0
    lines = capsys.readouterr().out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("still running at the dump"))
    slow = next(i for i, line in enumerate(lines) if line.startswith("calls of "))
    frames = [line for line in lines[head + 1 : slow] if " from " in line]
    assert len(frames) == 3  # main: loop, onClick, fetch (the worker has nothing open)
    assert all(line.split()[0].startswith("≥") for line in frames), frames
    fetch = next(line for line in frames if "com.app.Net.fetch" in line)
    assert fetch.split()[:4] == ["≥5.000", "s", "from", "2.130"]
    loop = next(line for line in frames if "Looper.loop" in line)
    assert "from ≤0.000 s" in loop  # on the stack when tracing began: began then or before


def test_anr_on_a_dump_without_times(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    doc = run_json(["anr", str(files["all"]), "--json"], capsys)
    assert doc["times"] is False and doc["slow"] == [] and doc["dump_us"] is None
    assert all(f["open_us"] is None for s in doc["open"] for f in s["frames"])


def test_info_shows_the_dump_and_its_processes(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["info", str(files["anr"]), "--process", "com.other"]) == 0
    text = capsys.readouterr().out
    assert "processes   2 dump(s) in this report (--process NAME|PID)" in text
    assert "*       99  com.other" in text and "        4321  com.example.app" in text
    assert "dump end    " in text and "monotonic   times + " in text
    doc = run_json(["info", str(files["anr"]), "--json"], capsys)
    assert [p["read"] for p in doc["processes"]] == [True, False]
    assert doc["pid"] == 4321 and doc["axis"] == "time"
    trace = load(files["anr"])
    assert (
        doc["end_ns"] == trace.header.end_ns
        and doc["monotonic_offset_ns"] == trace.header.monotonic_offset_ns
    )
    doc = run_json(["info", str(files["all"]), "--json"], capsys)
    assert doc["axis"] == "order" and doc["duration_us"] is None
    assert main(["info", str(files["all"])]) == 0
    assert "axis        order of events — this file has no times" in capsys.readouterr().out


@pytest.mark.parametrize("command", ["stats", "tree", "info", "anr"])
def test_process_on_every_command(
    files: dict[str, Path], command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([command, str(files["anr"]), "--process", "99"]) == 0
    capsys.readouterr()
    assert main([command, str(files["anr"]), "--process", "nobody"]) == 2
    err = capsys.readouterr().err
    assert "no process 'nobody'" in err and len(err.strip().splitlines()) == 1


def test_durations_of_a_dump_without_times_are_absent(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    stats = run_json(["stats", str(files["all"]), "--json"], capsys)
    row = stats["methods"][0]
    assert row["calls"] >= 1 and row["incl_wall_us"] is None and row["excl_wall_us"] is None
    assert all(t["wall_us"] is None for t in stats["threads"])
    tree = run_json(["tree", str(files["all"]), "--json"], capsys)
    root = tree["roots"][0]
    assert root["calls"] >= 1 and root["incl_wall_us"] is None
    assert main(["export", str(files["all"]), "-o", "-", "--format", "chrome"]) == 2
    assert "this trace has none" in capsys.readouterr().err


def test_flame_by_count(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """An all-methods dump's folded stacks count calls: each call's self is 1."""
    assert main(["export", str(files["all"]), "-o", "-", "--format", "folded"]) == 0
    lines = capsys.readouterr().out.splitlines()
    total = sum(int(line.rsplit(" ", 1)[1]) for line in lines)
    trace = load(files["all"])
    assert total == int(np.count_nonzero(trace.events.action == 0))


def test_convert_a_long_running_dump_and_refuse_one_without_times(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.trace"
    assert main(["convert", str(files["anr"]), str(out), "--process", "4321"]) == 0
    regular, dump = load(out), load(files["anr"])
    assert regular.header.variant == "regular"
    assert dump.events.wall is not None and regular.events.wall is not None
    assert np.array_equal(regular.events.wall, dump.events.wall // 1000 * 1000)  # µs
    capsys.readouterr()
    assert main(["convert", str(files["all"]), str(tmp_path / "x.trace")]) == 2
    assert "has no times" in capsys.readouterr().err
