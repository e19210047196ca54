"""The profile of a whole trace computed directly from the events, thread by thread, without
keeping a call table: each thread's records are paired (`calls.pair_records`, the same pairing
and repairs as `build_calls`), counted (`profile.thread_stats`) and dropped before the next
thread.

Used by `traceview -r`, a one-shot dump that needs the statistics and not the calls: the
result equals `profile(build_calls(trace))`, diagnostics included, and the peak memory is the
events plus one thread's temporaries.
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.calls import (
    REPAIRS,
    ThreadRows,
    pair_records,
    repair_counts,
    repair_diagnostics,
    thread_sizes,
)
from traceview.analysis.pairing import Paired
from traceview.analysis.profile import Profile, ThreadPart, merge_parts, thread_stats
from traceview.analysis.workers import biggest_first_map, default_workers
from traceview.model import Trace

I64 = npt.NDArray[np.int64]
SIZE_SAMPLE = 1 << 20  # records sampled to estimate the threads' sizes


def direct_profile(
    trace: Trace,
    workers: int | None = None,
    timings: dict[str, float] | None = None,
    clocks: tuple[str, ...] | None = None,
) -> Profile:
    """`profile(build_calls(trace))` (every thread, every clock or only `clocks`) without a
    call table.

    Threads are done biggest first (their temporaries are the peak) on `workers` OS threads
    (default TRACEVIEW_WORKERS when set, else two on a machine with two cores). `timings`,
    when given, receives the seconds spent pairing (`calls`) and counting (`profile`), summed
    over threads.
    """
    ev = trace.events
    n_threads = len(trace.threads)
    clocks = trace.clocks if clocks is None else clocks
    # sizes only order the work (biggest first) and pick the small threads: counted on a
    # sample of about 1M records
    step = max(1, len(ev) // SIZE_SAMPLE)
    sizes = thread_sizes(ev.thread[::step], n_threads) * step
    # threads without records add nothing but a zero total: never visited (a file may
    # declare 200,000 of them)
    present = thread_sizes(ev.thread, n_threads) > 0
    order = [t for t in np.argsort(-sizes, kind="stable").tolist() if present[t]]
    idx_dtype = np.int32 if len(ev) < 2**31 - 1 else np.int64
    rows_of = ThreadRows(ev.thread, sizes, idx_dtype, lazy=True)  # small ones: by a worker

    def one(t: int) -> tuple[ThreadPart, dict[str, int], tuple[float, float]]:
        start = time.perf_counter()
        rows = rows_of(t)
        act, meth = _take(ev.action, rows), _take(ev.method, rows)
        paired, dropped = pair_records(act, meth, None) if len(rows) else (Paired.empty(), 0)
        del act, meth
        counts = repair_counts(paired, dropped)
        mid = time.perf_counter()
        paired.depth = paired.subtree_end = None  # not counted: freed before the counting
        incl: dict[str, I64] = {}
        totals: dict[str, int] = {}
        for c in clocks:
            # the thread's times in order (one pass, reads in address order), then each
            # call's end and start from that thread-local copy (cache-resident reads);
            # one clock at a time so that only one copy is alive
            local = _take(ev.time(c), rows)
            inc = _take(local, paired.exit_event)
            inc -= _take(local, paired.enter_event)
            incl[c] = inc
            totals[c] = int(local[-1] - local[0]) if len(local) else 0
            del local
        paired.enter_event = paired.exit_event = None
        del rows
        assert paired.method is not None and paired.flags is not None
        assert paired.parent is not None
        stats = thread_stats(paired.method, paired.flags, paired.parent, incl)
        del paired, incl
        part = stats.part(t, totals)
        return part, counts, (mid - start, time.perf_counter() - mid)

    parts: list[ThreadPart | None] = [None] * n_threads
    repairs = dict.fromkeys(REPAIRS, 0)
    # default: two workers when the machine has two cores; the biggest thread (its
    # temporaries are the peak) meets only the smallest ones (biggest_first_map)
    if workers is None and "TRACEVIEW_WORKERS" not in os.environ:
        workers = min(2, os.cpu_count() or 1)
    n = default_workers() if workers is None else max(1, workers)
    spent = {"calls": 0.0, "profile": 0.0}
    for t, (part, counts, secs) in zip(order, biggest_first_map(one, order, n), strict=True):
        parts[t] = part
        for key, value in counts.items():
            repairs[key] += value
        spent["calls"] += secs[0]
        spent["profile"] += secs[1]
    if timings is not None:
        timings.update(spent)
    done = [p for p in parts if p is not None]
    everyone = tuple(range(n_threads))
    return merge_parts(done, trace, clocks, repair_diagnostics(repairs), threads=everyone)


def _take(col: npt.NDArray[Any], index: Any, chunk: int = 1 << 16) -> npt.NDArray[Any]:
    """`col[index]` in slices: numpy widens a narrow index to intp before gathering, and a
    slice's widened copy stays in the cache where the whole index's would not."""
    out = np.empty(len(index), dtype=col.dtype)
    for at in range(0, len(index), chunk):
        np.take(col, index[at : at + chunk], out=out[at : at + chunk])
    return out
