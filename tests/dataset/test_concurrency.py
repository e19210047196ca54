"""Several writers on one dataset (issue 21): two processes adding overlapping traces at once
add each trace once; a writer killed while staging leaves nothing visible and its claims
are taken over; a writer killed in the middle of publishing is finished by the next one to
touch the dataset, so every trace is in every table or in none."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.datasets import read_tables, write_traces
from traceview.dataset.layout import table_files
from traceview.dataset.publish import CLAIMS, STAGING

pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")

SRC = str(Path(__file__).resolve().parents[2] / "src")
# a hang guard, not a measurement: a writer still running after this long is stuck (the wait
# raises TimeoutExpired); the tests check what the writers leave, never how long they take
HANG_GUARD = 300

# a writer that kills itself (SIGKILL: no cleanup runs) at a chosen point
KILLED = """
import os, signal, sys
from pathlib import Path
from traceview.dataset import add, parts, publish

where = sys.argv[1]
if where == "staging":  # parts written, nothing published
    close = parts.Parts.close
    def close_then_die(self):
        close(self)
        os.kill(os.getpid(), signal.SIGKILL)
    parts.Parts.close = close_then_die
else:  # the journal and one part renamed into place
    real = publish.os.replace
    count = [0]
    def replace(a, b):
        count[0] += str(b).endswith(".parquet")
        if count[0] == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        real(a, b)
    publish.os.replace = replace
add.add(Path(sys.argv[2]), sys.argv[3:], {"build": "1"}, workers=1)
"""


def env() -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [SRC, os.environ.get("PYTHONPATH")])),
    }


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return write_traces(tmp_path_factory.mktemp("traces"), list(range(10, 18)), records=2000)


def adder(root: Path, paths: list[Path]) -> subprocess.Popen[bytes]:
    argv = [sys.executable, "-m", "traceview", "dataset", "add", str(root), *map(str, paths)]
    return subprocess.Popen([*argv, "--build", "1", "-q"], env=env(), stderr=subprocess.PIPE)


def reference(tmp_path: Path, paths: list[Path]) -> dict[str, object]:
    root = tmp_path / "reference"
    run = adder(root, paths)
    code = run.wait(timeout=HANG_GUARD)
    assert code == 0
    return read_tables(root)


def test_two_processes_adding_at_once_add_each_trace_once(
    traces: list[Path], tmp_path: Path
) -> None:
    root = tmp_path / "ds"
    first, second = adder(root, traces[:6]), adder(root, traces[3:])  # 3 traces in common
    for run in (first, second):
        _, err = run.communicate(timeout=HANG_GUARD)
        assert run.returncode == 0, err
    got = read_tables(root)
    assert sorted(got["traces"].column("name").to_pylist()) == sorted(p.name for p in traces)
    want = reference(tmp_path, traces)
    assert all(got[t].equals(want[t]) for t in want)
    assert not any((root / STAGING).iterdir()) and not any((root / CLAIMS).iterdir())


def test_a_writer_killed_while_staging_leaves_nothing_visible(
    traces: list[Path], tmp_path: Path
) -> None:
    root = tmp_path / "ds"
    run = subprocess.run(
        [sys.executable, "-c", KILLED, "staging", str(root), *map(str, traces[:3])],
        env=env(),
        timeout=HANG_GUARD,
    )
    assert run.returncode == -9
    assert any((root / STAGING).rglob("*.parquet"))  # its parts, staged
    assert any((root / CLAIMS).iterdir())  # and its claims
    assert all(not table_files(root, t) for t in ("traces", "calls", "methods"))
    second = adder(root, traces[:4])
    code = second.wait(timeout=HANG_GUARD)
    assert code == 0  # the dead writer's claims are taken over
    assert read_tables(root)["traces"].num_rows == 4
    assert not any((root / STAGING).iterdir()) and not any((root / CLAIMS).iterdir())


def test_a_writer_killed_while_publishing_is_finished_by_the_next(
    traces: list[Path], tmp_path: Path
) -> None:
    root = tmp_path / "ds"
    run = subprocess.run(
        [sys.executable, "-c", KILLED, "publish", str(root), *map(str, traces[:3])],
        env=env(),
        timeout=HANG_GUARD,
    )
    assert run.returncode == -9
    published = sum(len(table_files(root, t)) for t in ("traces", "threads", "methods", "calls"))
    assert published == 1  # the journal was written and one part renamed, then it died
    got = read_tables(root)  # a reader finishes the dead writer's journal first
    want = reference(tmp_path, traces[:3])
    assert all(got[t].equals(want[t]) for t in want)
    assert not any((root / STAGING).iterdir())
