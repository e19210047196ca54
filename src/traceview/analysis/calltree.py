"""Merged call paths: the top-down tree (calls with the same path from the root merged) and the
bottom-up tree (exclusive time attributed to each method, then to its callers), as column
tables. Built from a `CallTable` level by level with numpy (the bottom-up tree from the
top-down one, whose merged nodes are far fewer than the calls); consumed by `traceview tree`,
the text exporter and the viewer.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from traceview.analysis.calls import CallTable
from traceview.analysis.profile import sum_by
from traceview.model import Trace

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


def _rows(calls: CallTable, threads: Iterable[int] | None) -> npt.NDArray[np.intp] | None:
    """The rows of `threads` (None when that is every row, so no column is copied)."""
    if threads is None:
        return None
    ts = sorted({int(t) for t in threads})
    if len(ts) == len(calls.thread_ranges):
        return None
    parts = [np.arange(*calls.thread_ranges[t]) for t in ts]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.intp)


def top_down(
    calls: CallTable, threads: Iterable[int] | None = None, incl: dict[str, I64] | None = None
) -> CallTree:
    """Calls of `threads` (default all) merged by path from their root. `incl` gives each
    call's inclusive ns per clock (default its whole time; a time range passes the clipped
    times, analysis/ranges.py); a node's exclusive time is its inclusive minus its children's."""
    rows = _rows(calls, threads)
    clocks = calls.clocks
    sel: slice | npt.NDArray[np.intp] | None = rows
    if rows is None:  # the table's int32 columns as they are (no 8-byte copies)
        n = len(calls)
        parent: npt.NDArray[np.integer] = calls.parent
        method: npt.NDArray[np.integer] = calls.method
        depth = calls.depth
    elif len(rows) and int(rows[-1]) - int(rows[0]) + 1 == len(rows):
        # one block of whole threads (e.g. one thread): parents are inside it, so a shift
        # maps them (no table-sized lookup array per thread)
        n = len(rows)
        block = slice(int(rows[0]), int(rows[0]) + n)
        parent = calls.parent[block].astype(np.int64) - block.start
        parent[parent < 0] = -1
        method = calls.method[block].astype(np.int64)
        depth = calls.depth[block]
        sel = block
    else:
        n = len(rows)
        local = np.full(len(calls), -1, dtype=np.int64)
        local[rows] = np.arange(n)
        parent = calls.parent[rows].astype(np.int64)
        parent = np.where(parent >= 0, local[np.maximum(parent, 0)], -1)
        del local
        method = calls.method[rows].astype(np.int64)
        depth = calls.depth[rows]
    node = np.full(n, -1, dtype=np.int64)
    span = len(calls.trace.methods) + 1
    levels = _Levels()
    for at in by_depth(depth):
        up = node[parent[at]] if levels.count else np.full(len(at), -1, dtype=np.int64)
        node[at] = levels.add(up, method[at], span)
    del parent, method, depth
    k = levels.total
    n_calls = np.bincount(node, minlength=k).astype(np.int64)
    node_parent, node_method, node_depth = levels.columns()
    node_incl: dict[str, I64] = {}
    excl: dict[str, I64] = {}
    has = node_parent >= 0
    for c in clocks:
        if incl is not None:
            inc = incl[c] if sel is None else incl[c][sel]
        elif sel is None:
            inc = calls.incl(c)
        else:  # only the selected rows (a thread's tree need not touch the whole table)
            inc = calls.end(c, sel)
            inc -= calls.start(c, sel)
        node_incl[c] = sum_by(node, inc, k)
        del inc
        # a node's calls' children are exactly the calls of its child nodes
        excl[c] = node_incl[c] - sum_by(node_parent[has], node_incl[c][has], k)
    return _finish(
        calls.trace, clocks, node_parent, node_method, node_depth, n_calls, node_incl, excl
    )


def bottom_up(
    calls: CallTable, threads: Iterable[int] | None = None, max_depth: int = 64
) -> CallTree:
    """Exclusive time by method, then by caller path (up to `max_depth` callers).

    Inverts the top-down tree: a merged node's upward path is the path of each of its calls,
    so every sum is the same as over the calls, from far fewer rows."""
    return invert(top_down(calls, threads), max_depth)


def invert(tree: CallTree, max_depth: int = 64) -> CallTree:
    """The bottom-up tree of a top-down `tree` (up to `max_depth` callers per path)."""
    clocks = tree.clocks
    parent = tree.parent.astype(np.int64)
    method = tree.method.astype(np.int64)
    span = len(tree.trace.methods) + 1
    owner = np.arange(len(tree))  # the top-down node whose exclusive time an entry carries
    anc = owner.copy()  # current ancestor node of each entry
    prev = np.full(len(tree), -1, dtype=np.int64)  # its bottom-up node one level down
    levels = _Levels()
    sums: list[tuple[I64, dict[str, I64]]] = []
    for _ in range(max_depth + 1):
        if not len(anc):
            break
        ids = levels.add(prev, method[anc], span)
        base = levels.starts[-1]
        size = levels.total - base
        local = ids - base
        n_calls = sum_by(local, tree.calls[owner], size)
        sums.append((n_calls, {c: sum_by(local, tree.excl[c][owner], size) for c in clocks}))
        up = parent[anc]
        keep = up >= 0
        anc, prev, owner = up[keep], ids[keep], owner[keep]
    node_parent, node_method, node_depth = levels.columns()
    n_calls_all = _cat([s[0] for s in sums])
    weights = {c: _cat([s[1][c] for s in sums]) for c in clocks}
    return _finish(
        tree.trace, clocks, node_parent, node_method, node_depth, n_calls_all, weights, weights
    )


class _Levels:
    """Merged nodes added one level at a time: a node is a distinct (parent node, method)."""

    def __init__(self) -> None:
        self.parents: list[I64] = []
        self.methods: list[I64] = []
        self.starts: list[int] = []
        self.total = 0

    @property
    def count(self) -> int:
        return len(self.starts)

    def add(self, up: I64, method: npt.NDArray[np.integer], span: int) -> I64:
        """Node id of each (parent node or -1, method) pair, new ids for this level. Parents
        are nodes of the previous level, keyed relative to its first id, so the key space
        stays the size of one level (a 70 000-deep chain stays linear)."""
        base = self.starts[-1] if self.starts else 0
        rel = np.where(up >= 0, up - base + 1, 0)
        key = rel * span + method
        uniq, inverse = _unique(key, (self.total - base + 1) * span)
        pu, mu = np.divmod(uniq, span)
        self.parents.append(np.where(pu > 0, pu - 1 + base, -1))
        self.methods.append(mu)
        self.starts.append(self.total)
        ids = inverse + self.total
        self.total += len(uniq)
        return ids

    def columns(self) -> tuple[I64, I64, I64]:
        """parent, method and depth of every node, by id."""
        sizes = [len(m) for m in self.methods]
        depth = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
        return _cat(self.parents), _cat(self.methods), depth


def _unique(key: I64, space: int) -> tuple[I64, I64]:
    """`np.unique(key, return_inverse=True)`, by a presence table when the key space is small
    (no sort)."""
    if space <= 2 * len(key) + (1 << 20):
        seen = np.zeros(space, dtype=bool)
        seen[key] = True
        uniq = np.flatnonzero(seen).astype(np.int64)
        rank = np.cumsum(seen, dtype=np.int32 if space < 1 << 31 else np.int64)
        inverse: I64 = rank[key].astype(np.int64)
        inverse -= 1
        return uniq, inverse
    uniq, inverse = np.unique(key, return_inverse=True)
    return uniq.astype(np.int64), inverse.astype(np.int64).ravel()


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
    trace: Trace,
    clocks: tuple[str, ...],
    node_parent: I64,
    node_method: I64,
    node_depth: I64,
    calls: I64,
    incl: dict[str, I64],
    excl: dict[str, I64],
) -> CallTree:
    """Order summed nodes depth-first, children by decreasing inclusive on the first clock
    (ties by method row). Nodes come level by level (`parent[i] < i`), so subtree sizes are
    summed deepest level first and positions placed shallowest first."""
    k = len(node_method)
    weight = incl[clocks[0]] if clocks else calls
    order = np.lexsort((node_method, -weight, node_parent))  # siblings together, in order
    bounds = np.searchsorted(node_depth, np.arange(int(node_depth.max()) + 2 if k else 0))
    size = np.ones(k, dtype=np.int64)
    for d in range(len(bounds) - 2, 0, -1):  # parents of level d are in level d - 1
        lo, mid, hi = int(bounds[d - 1]), int(bounds[d]), int(bounds[d + 1])
        size[lo:mid] += np.bincount(node_parent[mid:hi] - lo, size[mid:hi], mid - lo).astype(
            np.int64
        )
    # offset of each node among its siblings: sizes of the siblings sorted before it
    sz = size[order]
    run = np.cumsum(sz) - sz
    par = node_parent[order]
    first = np.ones(k, dtype=bool)
    first[1:] = par[1:] != par[:-1]
    group_start = np.maximum.accumulate(np.where(first, np.arange(k), 0))
    offset = np.empty(k, dtype=np.int64)
    offset[order] = run - run[group_start]
    pos = offset.copy()  # roots: their offset; deeper: parent's position + 1 + offset
    for d in range(1, len(bounds) - 1):
        at = slice(bounds[d], bounds[d + 1])
        pos[at] += pos[node_parent[at]] + 1
    perm = np.empty(k, dtype=np.int64)
    perm[pos] = np.arange(k)
    par_new = node_parent[perm]
    return CallTree(
        trace=trace,
        clocks=clocks,
        parent=np.where(par_new >= 0, pos[np.maximum(par_new, 0)], -1).astype(np.int32),
        method=node_method[perm].astype(np.int32),
        depth=node_depth[perm].astype(np.int32),
        calls=calls[perm],
        incl={c: v[perm] for c, v in incl.items()},
        excl={c: v[perm] for c, v in excl.items()},
    )


def _cat(parts: list[I64]) -> I64:
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
