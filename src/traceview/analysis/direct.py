"""The profile of a whole trace computed directly from the events, without a call table: a
compiled pass over the records in file order keeps each thread's stack and counts every call
into its edge as it closes (kernels/direct.py, driven by analysis/walk.py), as dmtracedump
itself reads a trace.

Used by `traceview -r`, `stats`, `info` and `dmtracedump`, which need the statistics and not
the calls: the result equals `profile(build_calls(trace))`, diagnostics included, and the
memory is the events plus each thread's stack and the edges. The threads are split between
two workers (balanced by records); a thread whose exit names another method than its enter
is paired again by the numpy repair (`calls.pair_records`) and counted as a call table is.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis import walk
from traceview.analysis.calls import (
    REPAIRS,
    gather,
    pair_records,
    repair_counts,
    repair_diagnostics,
    rows_of,
)
from traceview.analysis.kernels.columns import Calls, Cut, Times
from traceview.analysis.parts import ThreadPart, edge_parts
from traceview.analysis.profile import Profile, count_edges, merge_parts
from traceview.analysis.workers import parallel_map
from traceview.model import Trace

I64 = npt.NDArray[np.int64]


def direct_profile(
    trace: Trace,
    workers: int | None = None,
    timings: dict[str, float] | None = None,
    clocks: tuple[str, ...] | None = None,
) -> Profile:
    """`profile(build_calls(trace))` (every thread, every clock or only `clocks`) without a
    call table.

    The threads are split into `workers` groups of about equal records (default
    TRACEVIEW_WORKERS when set, else two on a machine with two cores), each counted by one
    compiled pass on its own OS thread. `timings`, when given, receives the seconds spent
    sizing the threads' stacks (`calls`) and counting (`profile`, summed over workers).
    """
    ev = trace.events
    n_threads, n_methods = len(trace.threads), len(trace.methods)
    clocks = trace.clocks if clocks is None else clocks
    start = time.perf_counter()
    events = (ev.thread, ev.action, ev.method)
    counts = walk.counts_of(events, n_threads)
    lows = np.zeros((int(-counts[:, 2].sum()), 2), dtype=np.int64)
    if len(lows):  # frames open when tracing began: counted again, their exits kept
        walk.count_more(events, 0, walk.new_counts(n_threads), lows)
    synth_of, at = open_at_start(lows, counts)
    sized = time.perf_counter()
    none = np.zeros(0, dtype=np.int64)
    times = [*(ev.time(c) for c in clocks), none, none]
    columns = walk.Clocks(times[0], times[1], len(clocks))

    def count(mine: npt.NDArray[np.bool_]) -> Found:
        began = time.perf_counter()
        pass_ = walk.start_walk(counts, mine, (synth_of, at), n_methods)
        table = walk.feed(events, columns, 0, pass_, walk.first_table(), n_methods)
        return (*walk.finish(pass_, table, len(clocks)), time.perf_counter() - began)

    n = walk.pass_workers(workers)
    found = parallel_map(count, walk.split_threads(counts[:, 0], n), n)
    present = counts[:, 0] > 0
    totals = {c: np.zeros(n_threads, dtype=np.int64) for c in clocks}
    busy = np.flatnonzero(present)  # each thread's last minus first time
    for c in clocks:
        col = ev.time(c)
        totals[c][busy] = col[counts[busy, 5]] - col[counts[busy, 4]]
    if timings is not None:
        timings.update(calls=sized - start, profile=sum(f[3] for f in found))
    failed = present & (np.sum([f[2] for f in found], axis=0)[:, 1] > 0)
    idx = np.int32 if len(ev) < 2**31 - 1 else np.int64
    repaired = [
        _repaired(trace, t, rows, clocks, {c: int(totals[c][t]) for c in clocks})
        for t, rows in rows_of(ev.thread, failed, idx)  # one pass for all of them
    ]
    return counted_profile(trace, clocks, counts, found, totals, repaired)


Found = tuple[I64, I64, I64, float]  # a worker's edges (key, thread), sums, per thread, seconds


def open_at_start(lows: I64, counts: I64) -> tuple[I64, I64]:
    """The methods of the frames open when tracing began, from the exits that took their
    thread's balance to a new lowest (`lows`: (thread, method) in file order,
    `kernels.pairing.count_more`): thread `t`'s frame `d` (0 outermost) is `out[at[t] + d]`,
    the exit of its `s - d`-th new lowest (`s` frames). Returns `out` and `at`."""
    at = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(-counts[:, 2], out=at[1:])
    out = np.zeros(int(at[-1]), dtype=np.int64)
    order = np.argsort(lows[:, 0], kind="stable")
    t = lows[order, 0]
    j = np.arange(len(t)) - np.searchsorted(t, t)  # the j-th new lowest of its thread, from 0
    out[at[t + 1] - 1 - j] = lows[order, 1]
    return out, at


def counted_profile(
    trace: Trace,
    clocks: tuple[str, ...],
    counts: I64,
    found: list[Found],
    totals: dict[str, I64],
    repaired: list[tuple[ThreadPart, dict[str, int]]],
) -> Profile:
    """The profile from the compiled pass's workers (`found`), each thread's last minus first
    time (`totals`) and the parts of the threads the numpy path repaired."""
    n_threads, n_methods = len(trace.threads), len(trace.methods)
    keys = np.concatenate([f[0] for f in found])
    sums = np.concatenate([f[1] for f in found])
    per_thread = np.sum([f[2] for f in found], axis=0)
    present = counts[:, 0] > 0
    ok = present & ~(per_thread[:, 1] > 0)
    repairs = dict.fromkeys(REPAIRS, 0)
    repairs.update(
        synth=int(-counts[ok, 2].sum()),
        open=int(per_thread[ok, 2].sum()),
        unroll=int(per_thread[ok, 3].sum()),
    )
    threads = [(t, {c: int(totals[c][t]) for c in clocks}) for t in np.flatnonzero(ok).tolist()]
    parts = edge_parts(keys, sums, per_thread[:, 0], threads, clocks, n_methods)
    for part, fixed in repaired:
        parts.append(part)
        for key, value in fixed.items():
            repairs[key] += value
    parts.sort(key=lambda p: p.thread)
    everyone = tuple(range(n_threads))
    return merge_parts(parts, trace, clocks, repair_diagnostics(repairs), threads=everyone)


def _repaired(
    trace: Trace,
    t: int,
    rows: npt.NDArray[np.signedinteger[Any]],
    clocks: tuple[str, ...],
    totals: dict[str, int],
) -> tuple[ThreadPart, dict[str, int]]:
    """The part of thread row `t` (its event `rows`), whose exits do not all match their
    enters: its records repaired and paired by the numpy path (`pair_records`) and its calls
    counted as a call table's are (`profile.count_edges`); with the repairs made, by kind."""
    ev = trace.events
    paired, dropped = pair_records(gather(ev.action, rows), gather(ev.method, rows), None)
    counts = repair_counts(paired, dropped)
    calls = Calls._make(getattr(paired, name) for name in Calls._fields)
    times = Times.of([gather(ev.time(c), rows) for c in clocks])  # the thread's own rows
    lo, hi, thread = (np.array([x], dtype=np.int64) for x in (0, paired.rows, t))
    unclipped = np.zeros((1, 6), dtype=np.int64), False, np.zeros(0, dtype=np.int64)
    whole = Cut(lo, hi, thread, *unclipped)
    n_methods = len(trace.methods)
    keys, sums, counted = count_edges(calls, whole, times, n_methods, len(trace.threads))
    (part,) = edge_parts(keys, sums, counted, [(t, totals)], clocks, n_methods)
    return part, counts
