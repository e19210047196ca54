"""Opening a large V1 trace for a command that needs only its whole-trace profile
(`traceview -r`, `dmtracedump`'s report): its records are read twice and never kept
(readers/stream.py, analysis/streamed.py), so the memory is the interpreter, numba and one
chunk instead of the event columns (12 bytes a record on one clock, 20 on two).

`open_streamed` says None when that cannot give the numbers of the trace read whole, and the
command then opens it whole (`options.open_trace`): a small file (one read of it costs less
than two: analysis/small.py), another variant, ids the key does not declare, an exit naming another
method than its thread's open call (the numpy repair needs the thread's records), and under
dmtracedump's stack policy frames open when tracing began or calls left open by a thread id
of 32768 or more (their rewrite needs the records: analysis/dmtracedump/numbers.py).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Collection

from traceview.analysis.dmtracedump.numbers import THREAD_SLOTS
from traceview.analysis.session import Session
from traceview.analysis.small import SMALL
from traceview.analysis.streamed import FirstLook, Pass

BIG = SMALL * 32  # bytes: a smaller file is read whole


def whole_trace(args: argparse.Namespace) -> bool:
    """Whether the selection is every thread over the whole trace (no --thread, --from,
    --to, --my-code)."""
    return not (
        getattr(args, "thread", None)
        or getattr(args, "start", None) is not None
        or getattr(args, "stop", None) is not None
        or getattr(args, "my_code", None)
    )


def open_streamed(
    path: str, args: argparse.Namespace, clocks: Collection[str] | None, dmtracedump: bool
) -> Session | None:
    """A session on the trace at `path` holding its whole-trace profile on `clocks` (default
    every clock) and no records; None when it must be read whole (see the module docstring).
    `dmtracedump`: the report reproduces dmtracedump's handling of unbalanced stacks."""
    from traceview.readers import DEFAULT_MAX_SIZE
    from traceview.readers.stream import records
    from traceview.readers.v1.tables import wall_scale

    if path == "-" or getattr(args, "process", None) is not None:
        return None
    try:
        if os.path.getsize(path) < BIG:
            return None
    except OSError:
        return None
    size = getattr(args, "max_size", None) or DEFAULT_MAX_SIZE
    with records(path, max_size=size, salvage=bool(getattr(args, "salvage", False))) as file:
        if file is None:
            return None
        look = FirstLook()
        began = time.perf_counter()
        first = file.read(look, clocks=())
        counted = time.perf_counter() - began
        if not first.methods.declared.all():
            return None
        if any(d.code == "unknown-thread" for d in first.diagnostics):
            return None
        counts, synth = look.result(len(first.threads))
        if dmtracedump and len(synth[0]):  # exits with an empty stack: dmtracedump's orphans
            return None
        sink = Pass(counts, synth, len(first.methods))
        trace = file.read(sink, clocks)
    whole = sink.profile(trace, {"wall": wall_scale(trace)})
    if whole is None:
        return None
    if dmtracedump and (sink.open_calls()[trace.threads.id >= THREAD_SLOTS] > 0).any():
        return None
    session = Session(trace, whole=whole)
    session.timings.update(calls=counted, profile=sum(sink.seconds))  # (the first read's wall)
    return session
