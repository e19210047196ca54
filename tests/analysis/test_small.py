"""The compiled call table, profile of whole threads and direct profile equal the numpy
oracle's (support/small_oracle.py: what small traces once took, thread by thread) exactly, on
messy generated traces and the corpus; and a small trace's first screen in the viewer loads
no numba (its kernels run as native code)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings

import traceview
from support.corpus import readable
from support.engine_checks import SETTINGS, edge_dict, traces
from support.small_oracle import numpy_calls, numpy_direct
from traceview.analysis.calls import build_calls
from traceview.analysis.direct import direct_profile
from traceview.analysis.profile import Profile, profile
from traceview.model import Trace
from traceview.synth import generate

COLUMNS = ("method", "depth", "parent", "subtree_end", "enter_event", "exit_event", "flags")


def same_profiles(a: Profile, b: Profile) -> None:
    assert edge_dict(a) == edge_dict(b)
    assert a.threads == b.threads and a.diagnostics == b.diagnostics
    for c in a.clocks:
        assert np.array_equal(a.thread_total[c], b.thread_total[c])
    assert np.array_equal(a.thread_calls, b.thread_calls)


def check(trace: Trace) -> None:
    compiled = build_calls(trace)
    plain = numpy_calls(trace)
    for name in COLUMNS:
        x, y = getattr(plain, name), getattr(compiled, name)
        assert x.dtype == y.dtype and np.array_equal(x, y), name
    assert np.array_equal(plain.thread_ranges, compiled.thread_ranges)
    assert plain.diagnostics == compiled.diagnostics
    assert [plain.thread_span(t, c) for t in range(len(trace.threads)) for c in trace.clocks] == [
        compiled.thread_span(t, c) for t in range(len(trace.threads)) for c in trace.clocks
    ]
    want = numpy_direct(trace)
    same_profiles(profile(compiled), want)
    same_profiles(direct_profile(trace), want)


@settings(SETTINGS, max_examples=80)
@given(traces(messy=True))
def test_the_compiled_passes_equal_the_numpy_oracle(trace: Trace) -> None:
    check(trace)


def test_generated() -> None:
    check(generate(records=30_000, threads=10, seed=2026))


@pytest.mark.parametrize("path", readable(), ids=lambda p: p.name)
def test_corpus(path: Path) -> None:
    check(traceview.load(path))


def test_a_small_trace_loads_no_numba(tmp_path: Path) -> None:
    """The demo's first screen (call table, profile, the timeline's tiles) without numba: its
    import and first kernel load cost more than the work, and with an empty cache (after a
    fresh install) compiling would take seconds."""
    from traceview.writer import write

    path = tmp_path / "small.trace"
    write(generate(records=30_000, threads=10, seed=2026), str(path))
    probe = (
        "import sys\n"
        "from traceview.cli.options import open_trace\n"
        "from traceview.viewer.answers import profile_answer, timeline_answer, trace_answer\n"
        "s = open_trace(sys.argv[1])\n"
        "trace_answer(s); profile_answer(s, s.query())\n"
        "[timeline_answer(s, t, 0, 0) for t in range(len(s.trace.threads))]\n"
        "print('numba' in sys.modules)\n"
    )
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[2] / "src")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    run = subprocess.run(
        [sys.executable, "-c", probe, str(path)], capture_output=True, text=True, env=env
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split()[-1] == "False"
