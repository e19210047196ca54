"""The profile of a whole trace computed thread by thread without keeping a call table: each
thread's records are paired (`calls.pair_records`, the same pairing and repairs as
`build_calls`), counted (`profile.thread_stats`) and dropped before the next thread.

Used by `traceview -r`, a one-shot dump that needs the statistics and not the calls: the
result equals `profile(build_calls(trace))`, diagnostics included, and the peak memory is the
events plus one thread's temporaries.
"""

from __future__ import annotations

import itertools
import os
import time
from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis._workers import parallel_imap
from traceview.analysis.calls import _diagnostics, _ThreadRows, pair_records, thread_sizes
from traceview.analysis.profile import Profile, merge_parts, thread_stats
from traceview.model import Trace

I64 = npt.NDArray[np.int64]


def streamed_profile(
    trace: Trace, workers: int | None = None, timings: dict[str, float] | None = None
) -> Profile:
    """`profile(build_calls(trace))` (every thread, every clock) without a call table.

    Threads are done biggest first (their temporaries are the peak) on `workers` OS threads
    (default 1, or TRACEVIEW_WORKERS). `timings`, when given, receives the seconds spent
    pairing (`calls`) and counting (`profile`), summed over threads.
    """
    ev = trace.events
    n_threads = len(trace.threads)
    clocks = trace.clocks
    idx_dtype = np.int32 if len(ev) < 2**31 - 1 else np.int64
    sizes = thread_sizes(ev.thread, n_threads)
    order = np.argsort(-sizes, kind="stable").tolist()
    starts = np.zeros(n_threads + 1, dtype=np.int64)
    np.cumsum(sizes, out=starts[1:])
    spent = {"calls": 0.0, "profile": 0.0}

    def one(t: int, rows: npt.NDArray[np.signedinteger]) -> tuple[Profile, dict[str, int]]:
        start = time.perf_counter()
        paired, dropped = (
            pair_records(ev.action[rows], ev.method[rows], None) if len(rows) else _empty()
        )
        counts = {"synth": paired.synth, "open": paired.open, "unroll": paired.unroll}
        counts.update(forced=paired.forced, dropped=dropped)
        mid = time.perf_counter()
        incl: dict[str, I64] = {}
        totals: dict[str, int] = {}
        enter, leave = rows[paired.enter_event], rows[paired.exit_event]
        for c in clocks:
            col = ev.time(c)
            inc = col[leave]
            inc -= col[enter]
            incl[c] = inc
            totals[c] = int(col[rows[-1]] - col[rows[0]]) if len(rows) else 0
        del enter, leave
        assert paired.method is not None and paired.flags is not None
        assert paired.parent is not None
        stats = thread_stats(paired.method, paired.flags, paired.parent, incl)
        del paired, incl
        prof = stats.profile(trace, t, totals)
        spent["calls"] += mid - start
        spent["profile"] += time.perf_counter() - mid
        return prof, counts

    parts: list[Profile | None] = [None] * n_threads
    repairs = dict.fromkeys(("synth", "open", "unroll", "forced", "dropped"), 0)
    # the biggest thread alone (its temporaries are the peak), then the others on the workers
    # (default: two when the machine has two cores; the next two threads together are
    # usually smaller than the first)
    n = (
        min(2, os.cpu_count() or 1)
        if workers is None and "TRACEVIEW_WORKERS" not in os.environ
        else workers
    )
    rows_of = _ThreadRows(ev.thread, sizes, idx_dtype)
    results = [one(t, rows_of(t)) for t in order[:1]]
    rest = parallel_imap(lambda t: one(t, rows_of(t)), order[1:], n)
    for t, (prof, counts) in zip(order, itertools.chain(results, rest), strict=True):
        parts[t] = prof
        for key, value in counts.items():
            repairs[key] += value
    if timings is not None:
        timings.update(spent)
    done = [p for p in parts if p is not None]
    return merge_parts(done, trace, clocks, _diagnostics(repairs))


def _empty() -> tuple[Any, int]:
    from traceview.analysis._pairing import Paired

    return Paired.empty(), 0
