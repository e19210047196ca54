"""The profile's sums are exact integers at any size, and its memory follows the edges really
present, never threads x methods (the defects: float64 sums lost ns past 2**53, and a small file
declaring 5,000 threads x 5,000 methods peaked at 1.4 GB)."""

from __future__ import annotations

import tracemalloc

import numpy as np

from support.tracebuild import make_trace
from traceview.analysis import Session
from traceview.analysis.parts import sum_by
from traceview.model import EventTable, MethodTable, ThreadTable, Trace
from traceview.model.trace import Header


def test_sum_by_is_exact_past_2_to_the_53() -> None:
    big = 1 << 53
    got = sum_by(np.array([0, 0, 1, 1]), np.array([big, 1, big + 1, big + 1]), 2)
    assert got.tolist() == [big + 1, 2 * big + 2]
    neg = sum_by(np.array([0, 0]), np.array([-(big + 3), 1]), 1)
    assert neg.tolist() == [-(big + 2)]


def test_profile_past_2_to_the_53_ns_is_exact() -> None:
    long = (1 << 53) // 1000 + 1234  # µs: the call lasts just over 2**53 ns
    ev = [(1, "enter", "a.A.f", 0, 0), (1, "enter", "a.A.g", 1, 1)]
    ev += [(1, "exit", "a.A.g", 2, long), (1, "exit", "a.A.f", 3, long + 1)]
    trace = make_trace(ev)
    s = Session(trace)
    prof = s.profile(s.query())
    f = trace.methods.name.index("f")
    g = trace.methods.name.index("g")
    assert int(prof.incl["wall"][f]) == (long + 1) * 1000
    assert int(prof.incl["wall"][g]) == (long - 1) * 1000
    assert int(prof.excl["wall"][f]) == 2000


def test_many_threads_times_many_methods_stay_small() -> None:
    n = 3000  # each thread calls its own method: dense per-thread arrays were n*n*8 bytes each
    ev_thread = np.repeat(np.arange(n, dtype=np.uint16), 2)
    ev_method = np.repeat(np.arange(n, dtype=np.int32), 2)
    action = np.tile(np.array([0, 1], dtype=np.uint8), n)
    times = np.tile(np.array([0, 1000], dtype=np.int64), n)
    trace = Trace(
        header=Header(variant="regular", version=3, clock="dual"),
        threads=ThreadTable(id=np.arange(1, n + 1, dtype=np.int64), name=(None,) * n),
        methods=MethodTable(
            id=np.arange(1, n + 1, dtype=np.uint64) * 4,
            class_name=("a.A",) * n,
            name=tuple(f"m{i}" for i in range(n)),
            signature=("()V",) * n,
            source_file=("",) * n,
            line=np.full(n, -1, dtype=np.int32),
            declared=np.ones(n, dtype=bool),
        ),
        events=EventTable(ev_thread, ev_method, action, times.copy(), times.copy()),
    )
    trace.validate()
    tracemalloc.start()
    try:
        s = Session(trace)
        prof = s.profile(s.query())
        prof.validate()
        s.top_down(s.query(threads=[0, 1], time_range=s.time_range(0, 500)))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert int(prof.calls.sum()) == n and prof.total("cpu") == n * 1000
    assert peak < 64 << 20, f"peak {peak / 2**20:.0f} MiB"  # dense: 3000*3000*8 B = 69 MiB each
