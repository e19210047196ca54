"""`CallTable.excl` (the exclusive-time kernel, run as native code) equals the numpy oracle
(support/small_oracle.py, what small ranges once took) on whole threads, the whole table and
subtrees, with and without inclusive times given; and the viewer's frames answer on a small
trace (its first screen) loads no numba."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from support.small_oracle import exclusive
from traceview.analysis.calls import build_calls
from traceview.synth import generate


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_kernels_exclusive_times_equal_the_oracles(seed: int) -> None:
    trace = generate(records=6_000, threads=3, seed=seed)
    calls = build_calls(trace)
    none = np.zeros(0, dtype=np.int64)
    rng = np.random.default_rng(seed)
    ranges = [(int(a), int(b)) for a, b in calls.thread_ranges] + [(0, len(calls))]
    ranges += [(int(r), int(calls.subtree_end[r])) for r in rng.integers(0, len(calls), 20)]
    for clock in trace.events.clocks:
        col = trace.events.time(clock)
        for lo, hi in ranges:
            got = calls.excl(clock, slice(lo, hi))
            assert np.array_equal(got, exclusive(calls.columns, lo, hi, col, none))
            given = rng.integers(0, 1000, hi - lo).astype(np.int64)
            got = calls.excl(clock, slice(lo, hi), given)
            assert np.array_equal(got, exclusive(calls.columns, lo, hi, col, given))


PROBE = """
import sys
from traceview.analysis.session import Session
from traceview.cli.demo import demo_trace
from traceview.readers import load
from traceview.viewer.answers import frames_answer

answer = frames_answer(Session(load(demo_trace())), 16)
print(answer["frames"] > 0, "numba" in sys.modules)
"""


def test_the_first_screens_frames_load_no_numba() -> None:
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[2] / "src")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False"]
