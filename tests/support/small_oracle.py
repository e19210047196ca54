"""The numpy pairing and counting small traces and repaired threads once took in the product
(until the compiled passes, run as native code, served them too): each thread's records
paired by `calls.pair_records` and its edges counted by `thread_stats`, one thread at a time,
and the exclusive times of a range. They live on as oracles of the compiled call table,
profile, direct profile and exclusive-time kernel (tests/analysis/test_small.py,
tests/analysis/test_small_exclusive.py): the same rows, edges and diagnostics."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.calls import (
    REPAIRS,
    CallTable,
    _Columns,
    depth_dtype,
    gather,
    pair_records,
    repair_counts,
    repair_diagnostics,
)
from traceview.analysis.kernels.columns import Calls
from traceview.analysis.pairing import RECURSIVE, Paired
from traceview.analysis.parts import EdgeTable, ThreadPart, sum_by
from traceview.analysis.profile import Profile, merge_parts
from traceview.model import Trace, method_dtype

I64 = npt.NDArray[np.int64]


def exclusive(calls: Calls, lo: int, hi: int, times: I64, incl: I64) -> I64:
    """Each call's inclusive time in [lo, hi) (`incl[i - lo]` when given, else its exit's
    time minus its enter's) minus its children's in the range."""
    own = incl if len(incl) else times[calls.exit_event[lo:hi]] - times[calls.enter_event[lo:hi]]
    out = own.astype(np.int64)  # a copy
    parent = calls.parent[lo:hi].astype(np.int64)
    inside = parent >= lo
    np.subtract.at(out, parent[inside] - lo, own[inside])
    return out


def by_thread(thread: npt.NDArray[np.integer], n_threads: int) -> tuple[I64, I64]:
    """Event rows grouped by thread row (each thread's in file order) and each group's
    bounds."""
    order = np.argsort(thread, kind="stable").astype(np.int64)
    bounds = np.searchsorted(thread[order], np.arange(n_threads + 1)).astype(np.int64)
    return order, bounds


def numpy_calls(trace: Trace) -> CallTable:
    """`calls.build_calls(trace)` by the numpy pairing, thread by thread."""
    ev = trace.events
    n = len(trace.threads)
    idx = np.int32 if len(ev) < 2**31 - 1 else np.int64
    order, bounds = by_thread(ev.thread, n)
    stats = dict.fromkeys(REPAIRS, 0)
    paired: list[Paired] = []
    spans = np.full((n, 2), -1, dtype=np.int64)
    for t in range(n):
        rows: npt.NDArray[np.signedinteger[Any]] = order[bounds[t] : bounds[t + 1]].astype(idx)
        if not len(rows):
            paired.append(Paired.empty())
            continue
        p, dropped = pair_records(ev.action[rows], ev.method[rows], rows)
        for key, value in repair_counts(p, dropped).items():
            stats[key] += value
        spans[t] = rows[0], rows[-1]
        paired.append(p)
    starts = np.zeros(n + 1, dtype=np.int64)
    np.cumsum([p.rows for p in paired], out=starts[1:])
    height = max(
        (int(p.depth.max()) + 1 for p in paired if p.rows and p.depth is not None), default=0
    )
    out = _Columns(int(starts[-1]), idx, depth_dtype(height), method_dtype(len(trace.methods)))
    for t, p in enumerate(paired):
        if p.rows:
            out.put(int(starts[t]), p)
    table = out.table(trace, np.stack([starts[:-1], starts[1:]], axis=1), spans)
    table.diagnostics.extend(repair_diagnostics(stats))
    return table


def numpy_direct(trace: Trace) -> Profile:
    """`direct.direct_profile(trace)`: every thread with records paired and counted by numpy."""
    ev = trace.events
    clocks = trace.clocks
    order, bounds = by_thread(ev.thread, len(trace.threads))
    repairs = dict.fromkeys(REPAIRS, 0)
    parts: list[ThreadPart] = []
    for t in np.flatnonzero(np.diff(bounds)).tolist():
        rows = order[bounds[t] : bounds[t + 1]]
        paired, dropped = pair_records(ev.action[rows], ev.method[rows], None)
        for key, value in repair_counts(paired, dropped).items():
            repairs[key] += value
        incl: dict[str, I64] = {}
        totals: dict[str, int] = {}
        for c in clocks:
            local = gather(ev.time(c), rows)
            assert paired.exit_event is not None and paired.enter_event is not None
            incl[c] = local[paired.exit_event] - local[paired.enter_event]
            totals[c] = int(local[-1] - local[0])
        assert paired.method is not None and paired.flags is not None
        assert paired.parent is not None
        stats = thread_stats(paired.method, paired.flags, paired.parent, incl)
        parts.append(stats.part(int(t), totals))
    everyone = tuple(range(len(trace.threads)))
    return merge_parts(parts, trace, clocks, repair_diagnostics(repairs), threads=everyone)


@dataclass(frozen=True, eq=False)
class ThreadStats:
    """One thread's statistics as edge sums over compact methods (`used[k]` is the method
    row of compact method k); `profile()` derives the per-method sums from them."""

    used: npt.NDArray[np.intp]
    edge_key: I64  # caller bin (0 = (toplevel), else 1 + compact * 2 + rec) * 2u + callee bin
    edge_calls: I64
    edge_incl: dict[str, I64]
    n_calls: int

    def part(self, t: int, totals: dict[str, int]) -> ThreadPart:
        """Thread row `t`'s sparse statistics (`totals`: its last - first time per clock)."""
        used, u2 = self.used, 2 * len(self.used)
        caller, callee = np.divmod(self.edge_key, u2)
        caller_bin = np.maximum(caller - 1, 0)
        edges = EdgeTable(
            parent=np.where(caller > 0, used[caller_bin // 2], -1).astype(np.int32),
            child=used[callee // 2].astype(np.int32),
            parent_recursive=(caller > 0) & (caller_bin % 2 == 1),
            child_recursive=(callee % 2).astype(bool),
            calls=self.edge_calls,
            incl=self.edge_incl,
        )
        return ThreadPart(t, edges, dict(totals), self.n_calls)


def thread_stats(
    method: npt.NDArray[np.signedinteger[Any]],
    flags: npt.NDArray[np.uint8],
    parent: npt.NDArray[np.signedinteger],
    incl: dict[str, I64],
) -> ThreadStats:
    """Edge sums of one thread's calls (`parent`: thread-local rows, -1 for roots; `incl`:
    inclusive ns per call and clock).

    Every call adds its inclusive time and one call to the edge (caller's method and
    recursion bit, or (toplevel); its own method and recursion bit): one counting pass per
    clock over a dense key (a sort when the key space is large next to the thread).
    Per-method sums follow from the edges (exclusive = a bin's inclusive minus its
    children's), so no per-call exclusive time is computed."""
    n = len(method)
    top = int(method.max()) + 1 if n else 0
    ext = np.empty(n + 1, dtype=np.int64)
    ext[0] = 0
    bins = ext[1:]
    if (2 * top + 1) * 2 * top <= 2 * n + 4096:  # method rows as they are: a dense key
        used = np.arange(top)
        bins[...] = method
    else:  # compact method numbers: the rows this thread calls
        seen = np.zeros(top, dtype=bool)
        seen[method] = True
        used = np.flatnonzero(seen)
        compact = np.cumsum(seen, dtype=np.int64)
        compact -= 1
        np.take(compact, method, out=bins)
    u2 = 2 * len(used)
    bins *= 2
    bins += flags & RECURSIVE
    bins += 1
    key = ext[parent + 1]  # the caller's bin + 1 (0 for roots)
    bins -= 1
    key *= u2
    key += bins
    del ext, bins
    space = (u2 + 1) * u2
    edge_incl: dict[str, I64] = {}
    if space <= 2 * len(key) + 4096:  # dense counting when the key space is small
        counts = np.bincount(key, minlength=space)
        uniq = np.flatnonzero(counts)
        edge_calls = counts[uniq].astype(np.int64)
        del counts
        for c, v in incl.items():
            edge_incl[c] = sum_by(key, v, space)[uniq]
    else:
        uniq, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
        edge_calls = counts.astype(np.int64)
        for c, v in incl.items():
            edge_incl[c] = sum_by(inverse, v, len(uniq))
    return ThreadStats(used, uniq.astype(np.int64), edge_calls, edge_incl, len(key))
