"""`stats` on a trace with one clock, and `incl_percent` on the clock the user selected
(issue 18: a loop variable named `clock` overwrote the selection, so single-clock traces ended
in KeyError and the percentage was always the wall share)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from support.tracebuild import make_trace
from traceview.cli import stats
from traceview.model import Clock
from traceview.writer import write

# run: 10 µs CPU of 100 µs wall; sleep: 1 µs CPU of 90 µs wall (blocked)
EVENTS = [
    (1, "enter", "com.a.Main.run", 0, 0),
    (1, "enter", "java.lang.Thread.sleep", 2, 5),
    (1, "exit", "java.lang.Thread.sleep", 3, 95),
    (1, "exit", "com.a.Main.run", 10, 100),
]


def _rows(path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, dict[str, Any]]:
    assert stats.main([str(path), "--json", *args]) == 0
    doc = json.loads(capsys.readouterr().out)
    return {m["name"]: m for m in doc["methods"]}


def test_percent_follows_the_selected_clock(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "dual.trace"
    write(make_trace(EVENTS), path)
    cpu = _rows(path, capsys, "--clock", "cpu")
    wall = _rows(path, capsys, "--clock", "wall")
    assert cpu["sleep"]["incl_percent"] == pytest.approx(10.0)  # 1 of 10 µs CPU
    assert wall["sleep"]["incl_percent"] == pytest.approx(90.0)  # 90 of 100 µs wall


@pytest.mark.parametrize("clock", ["thread-cpu", "wall"])
def test_single_clock_trace_table_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], clock: Clock
) -> None:
    cpu_only = clock == "thread-cpu"
    events = [
        (t, a, m, c if cpu_only else None, None if cpu_only else w) for t, a, m, c, w in EVENTS
    ]
    path = tmp_path / f"{clock}.trace"
    write(make_trace(events, clock=clock), path)
    rows = _rows(path, capsys)
    present, missing = ("cpu", "wall") if cpu_only else ("wall", "cpu")
    assert rows["sleep"][f"incl_{present}_us"] == (1.0 if present == "cpu" else 90.0)
    assert rows["sleep"][f"incl_{missing}_us"] is None
    assert rows["sleep"]["incl_percent"] == pytest.approx(10.0 if present == "cpu" else 90.0)
    assert stats.main([str(path)]) == 0
    assert "Thread.sleep" in capsys.readouterr().out
