"""Debian's dmtracedump (an independent reader) opens the regular files the writer makes and
sees exactly the records written: thread, action, time and method, in file order."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from traceview.model import Trace
from traceview.synth import generate
from traceview.writer import write

pytestmark = [
    pytest.mark.dmtracedump,
    pytest.mark.skipif(shutil.which("dmtracedump") is None, reason="dmtracedump not installed"),
]
LINE = re.compile(r"^\s*(\d+) (ent|xit|unr)\s+(\d+) ?[.-]*(\S+) ")
ACTIONS = {"ent": 0, "xit": 1, "unr": 2}


def _dump(path: Path, *flags: str) -> str:
    done = subprocess.run(
        ["dmtracedump", *flags, str(path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout


CASES: list[dict[str, Any]] = [
    {"style": "art", "clock": "dual"},
    {"style": "dalvik", "clock": "dual"},
    {"style": "dalvik", "clock": "thread-cpu", "version": 1},
    {"style": "art", "clock": "wall"},
    {"style": "art", "clock": "dual", "balanced": True},
    {"style": "art", "clock": "dual", "sampled": True},
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(str(v) for v in c.values()))
def test_dmtracedump_reads_every_record(tmp_path: Path, case: dict[str, Any]) -> None:
    trace: Trace = generate(records=3000, threads=6, seed=5, **case)
    trace.validate()
    path = tmp_path / "g.trace"
    write(trace, path)
    rows = [m.groups() for m in map(LINE.match, _dump(path, "-o").splitlines()) if m]
    ev = trace.events
    assert len(rows) == len(ev)
    assert [int(r[0]) for r in rows] == trace.threads.id[ev.thread].tolist()
    assert [ACTIONS[r[1]] for r in rows] == ev.action.tolist()
    first = ev.cpu if ev.cpu is not None else ev.wall
    assert first is not None
    assert [int(r[2]) for r in rows] == ((first // 1000) & 0xFFFF_FFFF).tolist()
    me = trace.methods
    names = [f"{me.class_name[m]}.{me.name[m]}" for m in ev.method.tolist()]
    assert [r[3] for r in rows] == names
    report = _dump(path)
    assert "Total cycles:" in report and "Exclusive elapsed times" in report


def test_dmtracedump_balanced_totals(tmp_path: Path) -> None:
    """In a balanced trace every call closes: dmtracedump's call counts are our enter counts."""
    trace = generate(records=4000, threads=4, seed=8, balanced=True)
    path = tmp_path / "b.trace"
    write(trace, path)
    report = _dump(path)
    calls = {}
    for m in re.finditer(r"^\[\d+\]\s+\S+%\s+(\d+)\+(\d+)\s+\d+\s+(\S+ \S+)", report, re.M):
        calls[m.group(3)] = int(m.group(1)) + int(m.group(2))
    ev, me = trace.events, trace.methods
    enters = np.bincount(ev.method[ev.action == 0], minlength=len(me))
    expected = {
        f"{me.class_name[i]}.{me.name[i]} {me.signature[i]}": n
        for i, n in enumerate(enters.tolist())
    }
    assert len(calls) > 50
    for name, n in calls.items():
        assert expected[name] == n, name
