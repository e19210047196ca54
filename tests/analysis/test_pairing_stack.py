"""The compiled pairing (kernels/pairing.py) that `build_calls` uses gives, thread by thread,
exactly the calls of the numpy pairing (`pair_records`) that `traceview -r` uses: every
column, the thread ranges and events, and the repair counts; a thread whose exit names another
method goes through the same repair."""

from __future__ import annotations

import dataclasses

import numpy as np
from hypothesis import given, settings

from support.engine_checks import SETTINGS, traces
from traceview.analysis.calls import (
    REPAIRS,
    build_calls,
    pair_records,
    repair_counts,
    repair_diagnostics,
)
from traceview.model import Trace
from traceview.synth import generate

COLUMNS = ("method", "depth", "parent", "subtree_end", "enter_event", "exit_event", "flags")


def check_against_numpy(trace: Trace) -> None:
    calls = build_calls(trace)
    ev = trace.events
    stats = dict.fromkeys(REPAIRS, 0)
    for t in range(len(trace.threads)):
        lo, hi = (int(x) for x in calls.thread_ranges[t])
        rows = np.flatnonzero(ev.thread == t)
        if not len(rows):
            assert hi == lo
            assert calls.thread_events is not None
            assert calls.thread_events[t].tolist() == [-1, -1]
            continue
        want, dropped = pair_records(ev.action[rows], ev.method[rows], rows)
        for key, value in repair_counts(want, dropped).items():
            stats[key] += value
        assert hi - lo == want.rows
        assert want.parent is not None and want.subtree_end is not None
        parent = want.parent.astype(np.int64)
        shifted = {
            "parent": np.where(parent >= 0, parent + lo, -1),
            "subtree_end": want.subtree_end.astype(np.int64) + lo,
        }
        for col in COLUMNS:
            got = getattr(calls, col)[lo:hi].tolist()
            assert got == shifted.get(col, getattr(want, col)).tolist(), (t, col)
        assert calls.thread_events is not None
        assert calls.thread_events[t].tolist() == [int(rows[0]), int(rows[-1])]
    assert calls.diagnostics == repair_diagnostics(stats)
    calls.validate()


@settings(SETTINGS, max_examples=300)
@given(traces(messy=True))
def test_compiled_pairing_equals_the_numpy_pairing(trace: Trace) -> None:
    check_against_numpy(trace)


def test_generated_threads_interleaved() -> None:
    trace = generate(records=40_000, threads=7, seed=3)
    check_against_numpy(trace)
    grouped = np.argsort(trace.events.thread, kind="stable")  # thread after thread
    ev = trace.events
    one_by_one = dataclasses.replace(
        trace,
        events=type(ev)(
            ev.thread[grouped],
            ev.method[grouped],
            ev.action[grouped],
            cpu=None if ev.cpu is None else ev.cpu[grouped],
            wall=None if ev.wall is None else ev.wall[grouped],
        ),
    )
    check_against_numpy(one_by_one)
