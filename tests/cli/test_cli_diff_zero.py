"""The zero-baseline defect of `traceview diff` (issue 20): a method called on both sides whose
baseline time is 0 (a sampled run attributes no time to a short method) was printed as `new`
in the text table and the Markdown, as if it were absent from the baseline. `new` and `gone`
are for absence only; a zero baseline reads `from 0`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.tracebuild import make_trace
from traceview.cli import main
from traceview.model import Trace
from traceview.writer import write

INIT = "android.widget.TextView.<init>"


def calls_of_init(n: int, each_us: int) -> Trace:
    """`run` calling TextView.<init> `n` times, each lasting `each_us` µs on both clocks."""
    events = [(1, "enter", "com.a.Main.run", 0, 0)]
    t = 10
    for _ in range(n):
        events += [(1, "enter", INIT, t, t), (1, "exit", INIT, t + each_us, t + each_us)]
        t += each_us + 10
    events.append((1, "exit", "com.a.Main.run", t + 10, t + 10))
    return make_trace(events, names={1: "main"})


@pytest.fixture
def pair(tmp_path: Path) -> tuple[str, str]:
    base, cand = tmp_path / "sampled.trace", tmp_path / "instrumented.trace"
    write(calls_of_init(7, 0), base)  # 7 calls, no time seen
    write(calls_of_init(34, 100), cand)  # 34 calls, 3.4 ms
    return str(base), str(cand)


def diff(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["diff", *args])
    return code, capsys.readouterr().out


def test_zero_baseline_is_not_new_in_text(
    pair: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = diff([pair[0], "--vs", pair[1]], capsys)
    row = next(ln for ln in out.splitlines() if "TextView.<init>" in ln)
    assert "new" not in row and "from 0" in row and "7 → 34" in row
    assert code == 1  # the gate is unchanged: 0 -> 3.4 ms is past every threshold


def test_zero_baseline_is_not_new_in_markdown(
    pair: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    _, out = diff([pair[0], "--vs", pair[1], "--markdown"], capsys)
    row = next(ln for ln in out.splitlines() if "TextView.&lt;init&gt;" in ln)
    assert "new" not in row and "from 0" in row


def test_zero_baseline_in_json_is_present_on_both_sides(
    pair: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    _, out = diff([pair[0], "--vs", pair[1], "--json"], capsys)
    row = next(m for m in json.loads(out)["methods"] if m["name"] == "<init>")
    assert row["on_baseline"] and row["on_candidate"]
    assert row["status"] == "regression" and row["calls"]["baseline"] == 7
