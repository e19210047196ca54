"""Per-method statistics with traceview's semantics on both clocks, from a `CallTable`.

`profile(calls, threads=None, clock=None, time_range=None) -> Profile` sits after
`build_calls` and feeds the text/JSON exporters and the viewer. Semantics (format.md d.2/d.4):
exclusive = Σ over all calls (recursive ones included); top exclusive (the "self" row) and
inclusive = Σ over non-recursive calls only; calls = `n + r` (non-recursive + recursive).
Edges: every call adds its inclusive time and one call to the edge (caller method -> its
method), keyed also by whether the caller call and the call are recursive, which gives
traceview's "Parents"/"Children" and the "... while recursive" groups. Roots have the caller
`-1` ((toplevel)); the toplevel time of a thread is its total minus its roots' inclusive.
A per-thread profile is computed for each thread and the selection is their merge, so
per-thread and all-thread numbers come from one code path.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from traceview.analysis import walk
from traceview.analysis.calls import CallTable
from traceview.analysis.kernels.columns import Calls, Cut, Times
from traceview.analysis.kernels.native import Native
from traceview.analysis.parts import EdgeTable, ThreadPart, edge_parts, sum_by
from traceview.analysis.query import default_clock
from traceview.analysis.query import range_clock as default_range_clock
from traceview.analysis.ranges import Segments, ThreadCut, cut_thread, whole_thread
from traceview.analysis.workers import default_workers, parallel_map, pieces
from traceview.model import Diagnostic, Trace

I64 = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
_count_into = Native("edges", "count_into")  # native code: no numba to import


@dataclass(frozen=True, eq=False)
class Relatives:
    """The parents or children of one method: `method` rows (-1 = (toplevel)), calls through
    each edge and their inclusive ns per clock, by decreasing inclusive time."""

    method: npt.NDArray[np.int32]
    calls: I64
    incl: dict[str, I64]

    def __len__(self) -> int:
        return len(self.method)


@dataclass(frozen=True, eq=False)
class Profile:
    """Statistics of a selection of threads. Per-method arrays are indexed by method row.

    `calls`/`recursive_calls` are n and r; `incl`, `excl`, `top_excl` map each clock present
    ("cpu", "wall") to int64 ns per method. `threads` are the selected thread rows and
    `thread_total[clock]`, `thread_calls` their totals (last - first timestamp, clipped to the
    range). `toplevel[clock]` is Σ totals - Σ roots' inclusive. `estimates` is True for
    sampled traces. `time_range` is the (lo, hi) ns range on `range_clock`, or None.
    """

    trace: Trace
    threads: tuple[int, ...]
    clocks: tuple[str, ...]
    calls: I64
    recursive_calls: I64
    incl: dict[str, I64]
    excl: dict[str, I64]
    top_excl: dict[str, I64]
    edges: EdgeTable
    thread_total: dict[str, I64]
    thread_calls: I64
    toplevel: dict[str, int]
    estimates: bool = False
    time_range: tuple[int, int] | None = None
    range_clock: str | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def preferred_clock(self) -> str:
        """traceview's time base (`query.default_clock`) when computed, else the first clock."""
        clock = default_clock(self.trace)
        return clock if clock in self.clocks else self.clocks[0]

    def total(self, clock: str) -> int:
        """Σ of the selected threads' totals on `clock` (traceview's 100 %)."""
        return int(self.thread_total[clock].sum())

    def off_cpu(self) -> I64 | None:
        """Inclusive wall - inclusive cpu per method (time blocked), never negative (the two
        clocks tick at different granularities, so CPU can exceed wall by a tick), None
        without both."""
        if "cpu" not in self.clocks or "wall" not in self.clocks:
            return None
        off: I64 = np.maximum(self.incl["wall"] - self.incl["cpu"], 0)
        return off

    def used(self, clock: str | None = None) -> npt.NDArray[np.intp]:
        """Method rows with at least one call, ordered by decreasing inclusive time on `clock`
        (default the preferred clock), ties by method row."""
        rows = np.flatnonzero(self.calls + self.recursive_calls)
        c = clock or self.preferred_clock
        key = self.incl[c][rows] if self.clocks else np.zeros(len(rows))
        return rows[np.lexsort((rows, -key))]

    def parents(self, method: int, recursive: bool = False) -> Relatives:
        """Callers of `method` (its non-recursive calls, or recursive ones if `recursive`),
        summed over whether the caller was recursive."""
        e = self.edges
        return _group(e, (e.child == method) & (e.child_recursive == recursive), e.parent)

    def children(self, method: int, recursive: bool = False) -> Relatives:
        """Callees of `method` called from its non-recursive calls (or recursive ones)."""
        e = self.edges
        return _group(e, (e.parent == method) & (e.parent_recursive == recursive), e.child)

    def validate(self) -> None:
        """Check the profile invariants (see `_checks.check_profile`)."""
        from traceview.analysis.checks import check_profile

        check_profile(self)


def profile(
    calls: CallTable,
    threads: Iterable[int] | None = None,
    clock: str | None = None,
    time_range: tuple[int, int] | None = None,
    range_clock: str | None = None,
) -> Profile:
    """The profile of `threads` (thread rows; default all) on `clock` (default every clock
    present), optionally restricted to `time_range` (ns on `range_clock`, default wall, or
    cpu when the trace has no wall clock): calls are clipped to the range and counted when
    they overlap."""
    clocks = calls.clocks if clock is None else (clock,)
    selected = tuple(range(len(calls.trace.threads)) if threads is None else threads)
    sizes = calls.thread_ranges[:, 1] - calls.thread_ranges[:, 0]
    busy = [t for t in selected if sizes[t]]  # a thread without calls adds a zero total only
    parts = thread_parts(calls, busy, clock, time_range, range_clock)
    rc = _range_clock(calls, time_range, range_clock)
    return merge_parts(parts, calls.trace, clocks, calls.diagnostics, time_range, rc, selected)


def thread_profiles(
    calls: CallTable,
    threads: Iterable[int] | None = None,
    clock: str | None = None,
    time_range: tuple[int, int] | None = None,
    range_clock: str | None = None,
) -> list[Profile]:
    """One profile per selected thread row (same arguments as `profile`)."""
    clocks = calls.clocks if clock is None else (clock,)
    rc = _range_clock(calls, time_range, range_clock)
    return [
        merge_parts([p], calls.trace, clocks, (), time_range, rc)
        for p in thread_parts(calls, threads, clock, time_range, range_clock)
    ]


def thread_parts(
    calls: CallTable,
    threads: Iterable[int] | None = None,
    clock: str | None = None,
    time_range: tuple[int, int] | None = None,
    range_clock: str | None = None,
) -> list[ThreadPart]:
    """The sparse statistics of each selected thread (same arguments as `profile`)."""
    rows = range(len(calls.trace.threads)) if threads is None else threads
    clocks = calls.clocks if clock is None else (clock,)
    for c in clocks:
        if c not in calls.clocks:
            raise KeyError(f"this trace has no {c} clock")
    rc = _range_clock(calls, time_range, range_clock)
    if time_range is None or rc is None:
        return cut_parts(calls, [whole_thread(calls, int(t), clocks) for t in rows])
    return cut_parts(calls, [cut_thread(calls, int(t), clocks, rc, time_range) for t in rows])


def _range_clock(
    calls: CallTable, time_range: tuple[int, int] | None, range_clock: str | None
) -> str | None:
    if time_range is None:
        return None
    return range_clock or default_range_clock(calls.trace)


def merge_parts(
    parts: Sequence[ThreadPart],
    trace: Trace,
    clocks: tuple[str, ...],
    diagnostics: Sequence[Diagnostic] = (),
    time_range: tuple[int, int] | None = None,
    range_clock: str | None = None,
    threads: Sequence[int] | None = None,
) -> Profile:
    """The profile of disjoint threads from their sparse parts: edges are summed by key and
    the per-method arrays derived once, so memory follows the edges really present, never
    threads x methods. `threads` lists every selected thread row in order (default: the
    parts' threads); one without a part has zero totals and calls."""
    n_methods = len(trace.methods)
    clocks = tuple(parts[0].edges.incl) if parts else clocks
    if len(parts) == 1:
        edges = parts[0].edges
    else:
        keys = [_edge_keys(p.edges, n_methods) for p in parts]
        all_keys = np.concatenate(keys) if keys else np.zeros(0, np.int64)
        uniq, inverse = np.unique(all_keys, return_inverse=True)
        edges = _edges_from_keys(
            uniq,
            n_methods,
            sum_by(inverse, _cat([p.edges.calls for p in parts]), len(uniq)),
            {c: sum_by(inverse, _cat([p.edges.incl[c] for p in parts]), len(uniq)) for c in clocks},
        )
    rows = tuple(p.thread for p in parts) if threads is None else tuple(threads)
    at = np.full(len(trace.threads), -1, dtype=np.int64)
    at[list(rows)] = np.arange(len(rows))
    where = at[[p.thread for p in parts]] if parts else np.zeros(0, dtype=np.int64)
    totals = {c: np.zeros(len(rows), dtype=np.int64) for c in clocks}
    for c in clocks:
        totals[c][where] = [p.totals[c] for p in parts]
    thread_calls = np.zeros(len(rows), dtype=np.int64)
    thread_calls[where] = [p.n_calls for p in parts]
    child = edges.child.astype(np.int64) * 2 + edges.child_recursive
    has_parent = edges.parent >= 0
    parent = edges.parent[has_parent].astype(np.int64) * 2 + edges.parent_recursive[has_parent]
    nr = sum_by(child, edges.calls, 2 * n_methods)
    incl: dict[str, I64] = {}
    excl: dict[str, I64] = {}
    top: dict[str, I64] = {}
    toplevel: dict[str, int] = {}
    for c in clocks:
        w = edges.incl[c]
        inc = sum_by(child, w, 2 * n_methods)  # by (method, recursive) bin
        below = sum_by(parent, w[has_parent], 2 * n_methods)  # children's inclusive, by bin
        toplevel[c] = int(totals[c].sum()) - int(w[~has_parent].sum())
        exc = inc - below
        excl[c] = exc[0::2] + exc[1::2]
        top[c] = exc[0::2]
        incl[c] = inc[0::2]
    return Profile(
        trace=trace,
        threads=rows,
        clocks=clocks,
        calls=nr[0::2],
        recursive_calls=nr[1::2],
        incl=incl,
        excl=excl,
        top_excl=top,
        edges=edges,
        thread_total=totals,
        thread_calls=thread_calls,
        toplevel=toplevel,
        estimates=trace.header.sampled,
        time_range=time_range,
        range_clock=range_clock,
        diagnostics=list(diagnostics),
    )


def _cat(arrays: list[I64]) -> I64:
    return np.concatenate(arrays).astype(np.int64) if arrays else np.zeros(0, np.int64)


def cut_parts(
    calls: CallTable, cuts: Sequence[ThreadCut], workers: int | None = None
) -> list[ThreadPart]:
    """The statistics of each cut thread (`cuts`: a time range's rows near it and each
    clock's bounds, or a whole thread's rows unclipped; on the clocks of `cuts`' bounds).
    A compiled pass over those rows clips each call as it counts it
    (`count_edges`), so no call-sized column is made; the rows are cut into
    `workers` (default TRACEVIEW_WORKERS, else 2) equal pieces, anywhere, counted on as many
    threads, and the pieces' edges added up. Each part's edges come by caller bin, then
    callee bin, as the direct profile's (`direct_profile`, without a call table)."""
    if not cuts:
        return []
    clocks = tuple(cuts[0].clip)
    ev = calls.trace.events
    times = Times.of([ev.time(c) for c in clocks])
    seg = Segments.of(cuts, clocks)
    range_times = np.zeros(0, np.int64) if seg.range_clock is None else ev.time(seg.range_clock)
    n_methods, n_threads = len(calls.trace.methods), len(calls.trace.threads)

    def count(piece: tuple[I64, I64, I64]) -> tuple[I64, I64, I64]:
        cut = seg.cut(piece, range_times)
        return count_edges(calls.columns, cut, times, n_methods, n_threads)

    n = default_workers(unset=2) if workers is None else max(1, workers)
    found = parallel_map(count, pieces(np.stack((seg.lo, seg.hi), axis=1), n), n)
    keys = np.concatenate([f[0] for f in found])
    sums = np.concatenate([f[1] for f in found])
    counted = np.sum([f[2] for f in found], axis=0)
    threads = [(c.thread, dict(c.totals)) for c in cuts]
    return edge_parts(keys, sums, counted, threads, clocks, n_methods)


def count_edges(
    calls: Calls, cut: Cut, times: Times, n_methods: int, n_threads: int
) -> tuple[I64, I64, I64]:
    """The edges of the calls of `cut` (`kernels.edges.count_into`, its table grown and the
    pass resumed while full): each edge's (key, thread), its sums (calls, time on the first
    clock, on the second) and the calls counted per thread row."""
    table = walk.first_table()
    counted = np.zeros(n_threads, dtype=np.int64)
    at = np.array([0, cut.lo[0] if len(cut.lo) else 0, 0], dtype=np.int64)
    while True:
        _count_into(calls, cut, times, table, 2 * n_methods, counted, at)
        if at[0] >= len(cut.lo):
            k = int(at[2])
            return table.keys[:k].copy(), table.sums[:k].copy(), counted
        table = walk.grown(table, int(at[2]))


def _edge_keys(e: EdgeTable, n_methods: int) -> I64:
    key = (e.parent.astype(np.int64) + 1) * (n_methods + 1) + e.child
    return key * 4 + e.parent_recursive * 2 + e.child_recursive


def _edges_from_keys(uniq: I64, n_methods: int, calls: I64, incl: dict[str, I64]) -> EdgeTable:
    pair, flags = np.divmod(uniq, 4)
    parent, child = np.divmod(pair, n_methods + 1)
    return EdgeTable(
        parent=(parent - 1).astype(np.int32),
        child=child.astype(np.int32),
        parent_recursive=(flags & 2).astype(bool),
        child_recursive=(flags & 1).astype(bool),
        calls=calls,
        incl=incl,
    )


def _group(e: EdgeTable, mask: Bools, by: npt.NDArray[np.int32]) -> Relatives:
    """Edges under `mask` summed per `by` value (the other end), sorted by decreasing
    inclusive time on the first clock, ties by method row."""
    uniq, inverse = np.unique(by[mask], return_inverse=True)
    incl = {c: sum_by(inverse, v[mask], len(uniq)) for c, v in e.incl.items()}
    calls = sum_by(inverse, e.calls[mask], len(uniq))
    first = next(iter(incl.values()), np.zeros(len(uniq), np.int64))
    order = np.lexsort((uniq, -first))
    return Relatives(
        method=uniq[order].astype(np.int32),
        calls=calls[order],
        incl={c: v[order] for c, v in incl.items()},
    )
