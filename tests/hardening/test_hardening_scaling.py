"""Inputs that made work quadratic (issue 18): many nested methods in dmtracedump's report,
many threads in the profile of `info`, `-r` and dmtracedump. The work is counted, not timed:
elements converted or compared, calls of the per-thread pairing; and the largest cases run
end to end in a subprocess under the hardening memory limit (2 GiB), which must finish
cleanly. Their timeout only keeps a hung run from stalling the suite: the counts are what
tell linear from quadratic, and no clock is read."""

from __future__ import annotations

import io
import os
import resource
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from support.tracebuild import many_threads
from traceview.analysis import Session, calls, pairing
from traceview.analysis.direct import direct_profile
from traceview.analysis.view import View
from traceview.exporters.dmtracedump import Report, compute
from traceview.model import EventTable, Header, MethodTable, ThreadTable, Trace
from traceview.writer import write

SRC = Path(__file__).resolve().parents[2] / "src"
LIMIT = 2 << 30
# a hang guard, not a measurement: a run still going after this long is stuck (it raises
# TimeoutExpired); how much work the commands do is checked by the counting tests above it
HANG_GUARD = 300


class Counted(np.ndarray):
    """An array that counts the elements its `tolist` converts and its `==` compares."""

    converted = 0
    compared = 0

    def tolist(self) -> Any:
        Counted.converted += self.size
        return np.asarray(self).tolist()

    def __eq__(self, other: object) -> Any:
        Counted.compared += self.size
        return np.asarray(self) == other


def counted(a: npt.NDArray[Any]) -> Any:
    return a.view(Counted)


def nested(n: int) -> Trace:
    """One thread calling `n` distinct methods each inside the previous."""
    methods = MethodTable(
        id=np.arange(1, n + 1, dtype=np.uint64) * 4,
        class_name=tuple(f"com.a.C{i}" for i in range(n)),
        name=("m",) * n,
        signature=("()V",) * n,
        source_file=("",) * n,
        line=np.full(n, -1, dtype=np.int32),
        declared=np.ones(n, dtype=bool),
    )
    t = np.arange(2 * n, dtype=np.int64) * 1000
    events = EventTable(
        thread=np.zeros(2 * n, dtype=np.uint16),
        method=np.r_[np.arange(n), np.arange(n)[::-1]].astype(np.int32),
        action=np.r_[np.zeros(n), np.ones(n)].astype(np.uint8),
        cpu=t,
        wall=t,
    )
    return _trace(ThreadTable(id=np.array([1]), name=("main",)), methods, events)


def _trace(threads: ThreadTable, methods: MethodTable, events: EventTable) -> Trace:
    header = Header(
        variant="regular", version=3, clock="dual", key_version=3, vm="art",
        options={"clock": "dual", "vm": "art"}, record_size=14,
    )  # fmt: skip
    trace = Trace(header=header, threads=threads, methods=methods, events=events)
    trace.validate()
    return trace


@pytest.mark.parametrize("n", [1000, 4000])
def test_dmtracedump_report_converts_each_column_a_few_times(n: int) -> None:
    """The inclusive section printed each method's parents and children by converting the
    whole calls column again for every list: n methods, n × n elements."""
    s = Session(nested(n))
    view = View(s, s.query())
    lp, order = compute(view, "dmtracedump")
    arrays = ("excl", "top", "incl", "calls", "recursive")
    lp = replace(lp, **{name: counted(getattr(lp, name)) for name in arrays})
    Counted.converted = 0
    Report(lp, order, io.BytesIO(), html=False).write()
    assert Counted.converted <= 16 * len(lp), Counted.converted


def test_small_threads_are_not_paired_one_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Thousands of small threads: counted by one compiled pass, not one numpy pipeline each
    (a small trace is analysed by numpy only while it has few threads: analysis/small.py)."""
    seen = {"pairings": 0}
    real = pairing.pair_thread

    def pair_thread(*args: Any, **kw: Any) -> Any:
        seen["pairings"] += 1
        return real(*args, **kw)

    monkeypatch.setattr(calls, "pair_thread", pair_thread)
    prof = direct_profile(many_threads(3000, interleaved=True, open_every=0))
    assert int(prof.calls.sum()) == 6000
    assert seen["pairings"] < 64, seen


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("scaling")
    files = {"threads": folder / "threads.trace", "methods": folder / "methods.trace"}
    write(many_threads(65535, interleaved=True, open_every=0), files["threads"])
    write(nested(50_000), files["methods"])
    return files


@pytest.mark.parametrize(
    ("case", "command"),
    [
        ("threads", ["info"]),
        ("threads", ["-r"]),
        ("threads", ["dmtracedump"]),
        ("methods", ["dmtracedump"]),
        ("methods", ["dmtracedump", "-h"]),
    ],
)
def test_end_to_end(big: dict[str, Path], case: str, command: list[str]) -> None:
    """65,535 threads (3.9 MB) and 50,000 nested methods (3 MB) through the commands that
    were quadratic in them, as a user runs them."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "OPENBLAS_NUM_THREADS": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "traceview", *command, str(big[case])],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        timeout=HANG_GUARD,
        preexec_fn=_limit,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
