"""Merged call paths: the top-down tree (calls with the same path from the root merged) and the
bottom-up tree (exclusive time attributed to each method, then to its callers), as column
tables. Built from a `CallTable` by compiled kernels (analysis/kernels/merging.py: one pass over the
calls; the bottom-up tree from the top-down one, whose merged nodes are far fewer than the
calls); consumed by `traceview tree`, the text exporters, the flame graphs and the viewer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from traceview.analysis.calls import CallTable
from traceview.analysis.ranges import Segments, ThreadCut, whole_thread
from traceview.analysis.workers import default_workers, parallel_map, pieces
from traceview.model import Trace

if TYPE_CHECKING:
    from traceview.analysis.kernels.merging import Store

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]


@dataclass(frozen=True, eq=False)
class CallTree:
    """Nodes of a merged tree in depth-first pre-order, children by decreasing inclusive time
    on the first clock (ties by method row). `parent[i] < i` (-1 for roots), `method` row,
    `depth`, `calls` merged, `incl[clock]`/`excl[clock]` ns. Top-down: a node is a call path
    from the root. Bottom-up: roots are methods with their exclusive time, and a child is a
    caller, carrying the exclusive time of the root method reached through that path
    (both `incl` and `excl` hold that time)."""

    trace: Trace
    clocks: tuple[str, ...]
    parent: I32
    method: I32
    depth: I32
    calls: I64
    incl: dict[str, I64]
    excl: dict[str, I64]

    def __len__(self) -> int:
        return len(self.method)


def top_down(
    calls: CallTable,
    threads: Iterable[int] | None = None,
    cuts: Sequence[ThreadCut] | None = None,
    workers: int | None = None,
) -> CallTree:
    """Calls of `threads` (default all) merged by path from their root. With `cuts` (a time
    range laid on the table, analysis/ranges.py; their threads replace `threads`) only the
    calls overlapping the range count, each with its time clipped to it, a counted call whose
    caller does not count going under its nearest counted ancestor, as in `filters.subset`;
    a node's exclusive time is its inclusive minus its children's.

    One compiled pass over the calls (analysis/kernels/merging.py) reads the times straight from the
    events and clips them as it reads, so no table and no call-sized column is made. The rows
    are cut into `workers` (default TRACEVIEW_WORKERS, else 2) equal pieces, anywhere (a piece
    starting inside a call begins with that call's callers), merged on as many threads and
    the pieces' nodes added up."""
    from traceview.analysis.kernels import merging as kernels

    clocks = calls.clocks
    ev = calls.trace.events
    none = np.zeros(0, dtype=np.int64)
    times = [*(ev.time(c) for c in clocks), none, none]
    if cuts is None:
        picked = range(len(calls.thread_ranges)) if threads is None else sorted(set(threads))
        cuts = [whole_thread(calls, int(t), clocks) for t in picked]
    seg = Segments.of(sorted(cuts, key=lambda c: c.thread), clocks)
    range_times = none if seg.range_clock is None else ev.time(seg.range_clock)

    def merge(piece: tuple[I64, I64, I64]) -> tuple[Store, int]:
        lo, hi, which = piece
        return kernels.merge_calls(
            calls.parent, calls.subtree_end, calls.method, lo, hi, calls.enter_event,
            calls.exit_event, times[0], times[1], len(clocks), seg.range_clock is not None,
            range_times, seg.bounds[which],
        )  # fmt: skip

    # two by default: the pieces' node stores are small (at 70M calls 0.77 -> 0.70 s; the
    # pass is bound by reading the event times)
    n = default_workers(unset=2) if workers is None else max(1, workers)
    parts = parallel_map(merge, pieces(np.stack((seg.lo, seg.hi), axis=1), n), n)
    store, k = parts[0]
    for other, k_other in parts[1:]:
        store, k = kernels.absorb(store, k, other, k_other)
    return _finish(calls.trace, clocks, store, k)


def bottom_up(
    calls: CallTable, threads: Iterable[int] | None = None, max_depth: int = 64
) -> CallTree:
    """Exclusive time by method, then by caller path (up to `max_depth` callers).

    Inverts the top-down tree: a merged node's upward path is the path of each of its calls,
    so every sum is the same as over the calls, from far fewer rows."""
    return invert(top_down(calls, threads), max_depth)


def invert(tree: CallTree, max_depth: int = 64) -> CallTree:
    """The bottom-up tree of a top-down `tree` (up to `max_depth` callers per path)."""
    from traceview.analysis.kernels import merging as kernels

    clocks = tree.clocks
    excl = [tree.excl[c] for c in clocks] or [np.zeros(len(tree), dtype=np.int64)]
    store, k = kernels.merge_callers(
        tree.parent, tree.method, tree.calls, excl[0], excl[-1], max_depth
    )
    return _finish(tree.trace, clocks, store, k, bottom_up=True)


def by_depth(depth: npt.NDArray[np.integer]) -> list[npt.NDArray[np.intp]]:
    """Row indexes of each depth, shallowest first (one stable sort instead of a scan per
    depth)."""
    if not len(depth):
        return []
    top = int(depth.max())
    key = depth.astype(np.uint16) if top < 1 << 16 else depth
    order = np.argsort(key, kind="stable")
    bounds = np.searchsorted(key[order], np.arange(top + 2))
    return [order[bounds[d] : bounds[d + 1]] for d in range(top + 1)]


def _finish(
    trace: Trace, clocks: tuple[str, ...], store: Store, k: int, bottom_up: bool = False
) -> CallTree:
    """The `k` merged nodes of `store` (ids: parents first) in depth-first pre-order, children
    by decreasing inclusive on the first clock (ties by method row). A top-down node's
    exclusive time is its inclusive minus its children's; a bottom-up node's is its weight."""
    from traceview.analysis.kernels import merging as kernels

    parent = np.ascontiguousarray(store[1][:k, 0])
    method, depth = store[1][:k, 1], store[1][:k, 2]
    n_calls, sums = store[2][:k, 0], store[2][:k, 1:]
    own = None if bottom_up else kernels.exclusive(parent, sums)
    weight = sums[:, 0] if clocks else n_calls
    order = np.lexsort((method, -weight, parent))  # siblings together, in order
    pos = kernels.preorder(parent, order)
    perm = np.empty(k, dtype=np.int64)
    perm[pos] = np.arange(k)
    up = parent[perm]
    incl = {c: sums[perm, i] for i, c in enumerate(clocks)}
    return CallTree(
        trace=trace,
        clocks=clocks,
        parent=np.where(up >= 0, pos[np.maximum(up, 0)], -1).astype(np.int32),
        method=method[perm],
        depth=depth[perm],
        calls=n_calls[perm],
        incl=incl,
        excl=incl if own is None else {c: own[perm, i] for i, c in enumerate(clocks)},
    )
