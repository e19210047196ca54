"""`traceview -r TRACE`: traceview's regression-only text dump, computed by the engine.

Loads the trace, builds the call table, computes the full profile (both clocks, every thread
and all threads, parents/children) and prints the plain, diffable text of
`exporters.text.regress`. `TRACEVIEW_TIMINGS=1` prints the phase timings on stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from traceview.analysis.calls import build_calls
from traceview.analysis.profile import merge, thread_profiles
from traceview.exporters.text import regress
from traceview.model import EventTable, Trace
from traceview.readers import load


def _release_pairing_columns(trace: Trace) -> None:
    """-r is a one-shot dump: once the calls are paired only the two time columns are read
    again (the call table keeps each thread's first/last event), so thread, method and action
    (7 bytes a record, 70 MB at 10M records) are released before the profile. The trace is
    not used for anything else afterwards."""
    ev = trace.events
    trace.events = EventTable(
        thread=ev.thread[:0].copy(),
        method=np.zeros(0, dtype=np.int32),
        action=np.zeros(0, dtype=np.uint8),
        cpu=ev.cpu,
        wall=ev.wall,
    )


def main(argv: list[str]) -> int:
    """Print the regression dump of one trace; 0 on success."""
    parser = argparse.ArgumentParser(
        prog="traceview -r", description="regression-only text dump of a trace"
    )
    parser.add_argument("trace", help="the .trace file")
    args = parser.parse_args(argv)
    timings = os.environ.get("TRACEVIEW_TIMINGS") == "1"
    marks = [("start", time.perf_counter(), time.process_time())]
    trace = load(args.trace)
    marks.append(("load", time.perf_counter(), time.process_time()))
    calls = build_calls(trace)
    _release_pairing_columns(trace)
    marks.append(("calls", time.perf_counter(), time.process_time()))
    per_thread = thread_profiles(calls)
    prof = merge(per_thread, calls)
    marks.append(("profile", time.perf_counter(), time.process_time()))
    text = regress(prof, calls)
    sys.stdout.write(text)
    sys.stdout.flush()
    marks.append(("output", time.perf_counter(), time.process_time()))
    if timings:
        steps = " ".join(
            f"{name}={wall - marks[i][1]:.3f}s/{cpu - marks[i][2]:.3f}cpu"
            for i, (name, wall, cpu) in enumerate(marks[1:])
        )
        total = marks[-1][1] - marks[0][1]
        print(f"timings: {steps} total={total:.3f}s", file=sys.stderr)
    return 0
