"""The profile of a whole trace computed directly from the events, thread by thread, without
keeping a call table: each thread's records are paired (`calls.pair_records`, the same pairing
and repairs as `build_calls`), counted (`profile.thread_stats`) and dropped before the next
thread.

Used by `traceview -r`, a one-shot dump that needs the statistics and not the calls: the
result equals `profile(build_calls(trace))`, diagnostics included, and the peak memory is the
events plus one thread's temporaries. Small threads (at most `SMALL` records) are paired
together, a batch of about `BATCH` records at a time, through a call table of the batch: a
thread costs a few dozen numpy calls, so 65,535 threads one by one took a minute.
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
from traceview.analysis.profile import EdgeTable, Profile, ThreadPart, merge_parts, thread_stats
from traceview.analysis.workers import biggest_first_map, default_workers
from traceview.model import EventTable, Trace

I64 = npt.NDArray[np.int64]
SIZE_SAMPLE = 1 << 20  # records sampled to estimate the threads' sizes
SMALL = 4096  # records: a thread this small is paired in a batch with others
MIN_BATCH = 64  # fewer small threads than this are done one by one
BATCH = 1 << 20  # records paired at once (a call table of about 20 MB)


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
    records = thread_sizes(ev.thread, n_threads)
    present = records > 0
    small = present & (records <= SMALL)
    if np.count_nonzero(small) < MIN_BATCH:
        small[:] = False
    order = [t for t in np.argsort(-sizes, kind="stable").tolist() if present[t] and not small[t]]
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
    batch_start = time.perf_counter()
    for part in small_parts(trace, np.flatnonzero(small), clocks, repairs):
        parts[part.thread] = part
    spent["calls"] += time.perf_counter() - batch_start
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


CODES = {  # repair_diagnostics' codes -> the repair counted
    "exit-without-enter": "synth",
    "open-at-end": "open",
    "unroll-exit": "unroll",
    "forced-exit": "forced",
    "stray-exit-dropped": "dropped",
}


def small_parts(
    trace: Trace, threads: npt.NDArray[np.intp], clocks: tuple[str, ...], repairs: dict[str, int]
) -> list[ThreadPart]:
    """The parts of `threads` (small ones), paired in batches of about `BATCH` records: the
    batch's records (each thread's in order) become a trace of their own whose call table
    (`build_calls`: one compiled pass) is counted at once; the first thread's part holds the
    batch's edges, every part its own totals and calls. Adds the repairs to `repairs`."""
    from traceview.analysis.calls import build_calls

    if not len(threads):
        return []
    ev = trace.events
    wanted = np.zeros(len(trace.threads), dtype=bool)
    wanted[threads] = True
    rows = np.flatnonzero(wanted[ev.thread])
    rows = rows[np.argsort(ev.thread[rows], kind="stable")]  # by thread, each in order
    owner = ev.thread[rows]
    starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    ends = np.r_[starts[1:], len(rows)]
    cuts = np.unique(np.searchsorted(starts, np.arange(0, len(rows), BATCH), side="right") - 1)
    cuts = np.r_[cuts, len(starts)]
    parts: list[ThreadPart] = []
    empty = EdgeTable(
        parent=np.zeros(0, np.int32),
        child=np.zeros(0, np.int32),
        parent_recursive=np.zeros(0, bool),
        child_recursive=np.zeros(0, bool),
        calls=np.zeros(0, np.int64),
        incl={c: np.zeros(0, np.int64) for c in clocks},
    )
    for a, b in zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True):
        sel = rows[int(starts[a]) : int(ends[b - 1])]
        batch = EventTable(
            thread=ev.thread[sel],
            method=ev.method[sel],
            action=ev.action[sel],
            cpu=None if ev.cpu is None else ev.cpu[sel],
            wall=None if ev.wall is None else ev.wall[sel],
        )
        calls = build_calls(Trace(trace.header, trace.threads, trace.methods, batch))
        for d in calls.diagnostics:
            repairs[CODES[d.code]] += d.count or 0
        incl = {c: calls.incl(c) for c in clocks}
        stats = thread_stats(calls.method, calls.flags, calls.parent, incl)
        first = starts[a:b] - starts[a]
        last = ends[a:b] - 1 - starts[a]
        totals = {c: (batch.time(c)[last] - batch.time(c)[first]).tolist() for c in clocks}
        ts = owner[starts[a:b]].tolist()
        n_calls = (calls.thread_ranges[ts, 1] - calls.thread_ranges[ts, 0]).tolist()
        for k, t in enumerate(ts):
            edges = stats.part(t, {}).edges if k == 0 else empty
            parts.append(ThreadPart(t, edges, {c: totals[c][k] for c in clocks}, n_calls[k]))
    return parts
