"""The README's Python and SQL examples run, on the bundled demo trace (`app.trace` in the text
is the demo; `runs/*.trace` is a folder of demo copies), and say what they claim."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from traceview.cli import main
from traceview.synth import demo_path

README = Path(__file__).resolve().parents[1] / "README.md"


def section(title: str) -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def blocks(title: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", section(title), re.S)


def test_python_examples_run_on_the_demo() -> None:
    pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    code = blocks("Python", "python")
    assert len(code) >= 3
    ns: dict[str, Any] = {}
    for block in code:
        exec(compile(block.replace('"app.trace"', repr(str(demo_path()))), "README", "exec"), ns)
    # the one-liner: the main thread's top 20 by exclusive wall time
    session = ns["session"]
    prof = session.profile(session.query(threads=[session.main_thread()]))
    want = np.sort(prof.excl["wall"])[::-1][:20]
    assert ns["top"]["excl_wall_ns"].tolist() == want.tolist()
    assert list(ns["df"]["excl_wall_ns"]) == want.tolist()
    # the composed selection: main thread, 100-300 ms, com.example.* rows
    sel = ns["sel"]
    assert sel.query.threads == (session.main_thread(),)
    assert sel.query.time_range == session.time_range(100_000_000, 300_000_000)
    labels = ns["prof"]["label"]
    assert len(labels) and all(str(x).startswith("com.example.") for x in labels)
    assert ns["table"].num_rows == len(ns["calls"])


def test_sql_examples_run_on_the_demo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("duckdb")
    pytest.importorskip("pyarrow")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    shutil.copy(demo_path(), tmp_path / "app.trace")
    (tmp_path / "runs").mkdir()
    for name in ("a.trace", "b.trace"):
        shutil.copy(demo_path(), tmp_path / "runs" / name)
    commands = [
        line
        for block in blocks("SQL over one trace or a thousand", "sh")
        for line in block.splitlines()
    ]
    assert len(commands) >= 3
    for line in commands:
        argv = shlex.split(line)
        assert argv[:2] == ["traceview", "sql"]
        code = main(argv[1:])
        out, err = capsys.readouterr()
        assert code == 0, (line, err)
        assert out.strip()
    # the cross-run example has one row per run
    code = main(shlex.split(commands[1])[1:])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "trace,main_cpu" and sorted(r.split(",")[0] for r in lines[1:]) == [
        "runs/a.trace",
        "runs/b.trace",
    ]
