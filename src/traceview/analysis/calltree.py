"""Merged call paths: the top-down tree (calls with the same path from the root merged) and the
bottom-up tree (exclusive time attributed to each method, then to its callers), as column
tables. Built from a `CallTable` by compiled kernels (analysis/_merging.py: one pass over the
calls; the bottom-up tree from the top-down one, whose merged nodes are far fewer than the
calls); consumed by `traceview tree`, the text exporters, the flame graphs and the viewer.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from traceview.analysis._workers import default_workers, parallel_map
from traceview.analysis.calls import CallTable
from traceview.model import Trace

if TYPE_CHECKING:
    from traceview.analysis._merging import Store

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
PIECE_ROWS = 1 << 20  # fewer calls than this are merged on one thread


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
    incl: dict[str, I64] | None = None,
    keep: npt.NDArray[np.bool_] | None = None,
    workers: int | None = None,
) -> CallTree:
    """Calls of `threads` (default all) merged by path from their root. `incl` gives each
    call's inclusive ns per clock (default its whole time; a time range passes the clipped
    times, analysis/ranges.py); a node's exclusive time is its inclusive minus its children's.
    `keep` (a mask of the table's rows) leaves calls out: a kept call whose caller is left out
    counts under its nearest kept ancestor, as in `filters.subset` (a time range's calls
    without cutting a table).

    One compiled pass over the calls (analysis/_merging.py) reads the times straight from the
    events, so no call-sized column is made. The rows are cut into `workers` (default
    TRACEVIEW_WORKERS, else 2) equal pieces, anywhere (a piece starting inside a call begins
    with that call's callers), merged on as many threads and the pieces' nodes added up."""
    from traceview.analysis import _merging as kernels

    clocks = calls.clocks
    ranges = calls.thread_ranges
    picked = range(len(ranges)) if threads is None else sorted({int(t) for t in threads})
    segments = np.array([ranges[t] for t in picked], dtype=np.int64).reshape(-1, 2)
    if keep is not None:
        segments = _runs(keep, segments)
    none = np.zeros(0, dtype=np.int64)
    times = [calls.trace.events.time(c) for c in clocks] if incl is None else []
    times = times or [none]
    given = [np.ascontiguousarray(incl[c], dtype=np.int64) for c in clocks] if incl else []
    given = given or [none]

    mask = np.zeros(0, dtype=bool) if keep is None else keep

    def merge(piece: tuple[I64, I64]) -> tuple[Store, int]:
        return kernels.merge_calls(
            calls.parent,
            calls.subtree_end,
            calls.method,
            piece[0],
            piece[1],
            mask,
            calls.enter_event,
            calls.exit_event,
            times[0],
            times[-1],
            given[0],
            given[-1],
            len(clocks),
            incl is None,
        )

    # two by default: the pieces' node stores are small (at 70M calls 0.77 -> 0.70 s; the
    # pass is bound by reading the event times)
    n = default_workers(unset=2) if workers is None else max(1, workers)
    parts = parallel_map(merge, _pieces(segments, n), n)
    store, k = parts[0]
    for other, k_other in parts[1:]:
        store, k = kernels.absorb(store, k, other, k_other)
    return _finish(calls.trace, clocks, store, k)


def _runs(keep: npt.NDArray[np.bool_], segments: I64) -> I64:
    """The (lo, hi) runs of rows where `keep` is True inside `segments`."""
    parts = []
    for lo, hi in segments.tolist():
        step = np.diff(keep[lo:hi].view(np.int8), prepend=0, append=0)
        starts, ends = np.flatnonzero(step == 1), np.flatnonzero(step == -1)
        parts.append(np.stack((starts, ends), axis=1) + lo)
    return np.concatenate(parts) if parts else segments


def _pieces(segments: I64, n: int) -> list[tuple[I64, I64]]:
    """`segments` (lo, hi row pairs) cut into `n` pieces of about equal rows, each as its
    (lo, hi) arrays; one piece when the rows are too few to be worth a thread."""
    sizes = segments[:, 1] - segments[:, 0]
    total = int(sizes.sum())
    if n <= 1 or total < PIECE_ROWS:
        return [(segments[:, 0].copy(), segments[:, 1].copy())]
    before = np.concatenate(([0], np.cumsum(sizes)))  # rows before each segment
    cuts = [total * i // n for i in range(n + 1)]
    out = []
    for a, b in itertools.pairwise(cuts):
        lo = np.clip(a - before[:-1], 0, sizes) + segments[:, 0]
        hi = np.clip(b - before[:-1], 0, sizes) + segments[:, 0]
        keep = hi > lo
        out.append((lo[keep], hi[keep]))
    return out


def bottom_up(
    calls: CallTable, threads: Iterable[int] | None = None, max_depth: int = 64
) -> CallTree:
    """Exclusive time by method, then by caller path (up to `max_depth` callers).

    Inverts the top-down tree: a merged node's upward path is the path of each of its calls,
    so every sum is the same as over the calls, from far fewer rows."""
    return invert(top_down(calls, threads), max_depth)


def invert(tree: CallTree, max_depth: int = 64) -> CallTree:
    """The bottom-up tree of a top-down `tree` (up to `max_depth` callers per path)."""
    from traceview.analysis import _merging as kernels

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
    from traceview.analysis import _merging as kernels

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
