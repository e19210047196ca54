"""Merged call paths: the top-down tree (calls with the same path from the root merged) and the
bottom-up tree (exclusive time attributed to each method, then to its callers), as column
tables. Built from a `CallTable` level by level with numpy; consumed by `traceview tree`, the
text exporter and the viewer.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from traceview.analysis.calls import CallTable
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


def _rows(calls: CallTable, threads: Iterable[int] | None) -> npt.NDArray[np.intp]:
    ts = range(len(calls.thread_ranges)) if threads is None else threads
    parts = [np.arange(*calls.thread_ranges[int(t)]) for t in ts]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.intp)


def top_down(calls: CallTable, threads: Iterable[int] | None = None) -> CallTree:
    """Calls of `threads` (default all) merged by path from their root."""
    rows = _rows(calls, threads)
    clocks = calls.clocks
    n = len(rows)
    local = np.full(len(calls), -1, dtype=np.int64)
    local[rows] = np.arange(n)
    parent = calls.parent[rows].astype(np.int64)
    parent = np.where(parent >= 0, local[np.maximum(parent, 0)], -1)
    method = calls.method[rows].astype(np.int64)
    depth = calls.depth[rows]
    incl = {c: calls.incl(c)[rows] for c in clocks}
    excl = {c: calls.excl(c)[rows] for c in clocks}
    node = np.full(n, -1, dtype=np.int64)
    span = np.int64(len(calls.trace.methods) + 1)
    node_parent: list[I64] = []
    node_method: list[I64] = []
    next_id = 0
    for d in range(int(depth.max()) + 1 if n else 0):
        at = np.flatnonzero(depth == d)
        up = node[parent[at]] if d else np.full(len(at), -1, dtype=np.int64)
        key = (up + 1) * span + method[at]
        uniq, inverse = np.unique(key, return_inverse=True)
        node[at] = inverse + next_id
        pu, mu = np.divmod(uniq, span)
        node_parent.append(pu - 1)
        node_method.append(mu)
        next_id += len(uniq)
    return _finish(
        calls.trace,
        clocks,
        node,
        np.concatenate(node_parent) if node_parent else np.zeros(0, np.int64),
        np.concatenate(node_method) if node_method else np.zeros(0, np.int64),
        incl,
        excl,
    )


def bottom_up(
    calls: CallTable, threads: Iterable[int] | None = None, max_depth: int = 64
) -> CallTree:
    """Exclusive time by method, then by caller path (up to `max_depth` callers)."""
    rows = _rows(calls, threads)
    clocks = calls.clocks
    excl_all = {c: calls.excl(c)[rows] for c in clocks}
    span = np.int64(len(calls.trace.methods) + 1)
    owner = np.arange(len(rows))  # which contribution each frontier entry carries
    anc = rows.astype(np.int64)  # current ancestor call of each contribution
    prev = np.full(len(rows), -1, dtype=np.int64)
    node_parent: list[I64] = []
    node_method: list[I64] = []
    members_node: list[I64] = []
    members_owner: list[npt.NDArray[np.intp]] = []
    next_id = 0
    for _ in range(max_depth + 1):
        if not len(anc):
            break
        key = (prev + 1) * span + calls.method[anc]
        uniq, inverse = np.unique(key, return_inverse=True)
        ids = inverse + next_id
        pu, mu = np.divmod(uniq, span)
        node_parent.append(pu - 1)
        node_method.append(mu)
        members_node.append(ids)
        members_owner.append(owner)
        next_id += len(uniq)
        up = calls.parent[anc].astype(np.int64)
        keep = up >= 0
        anc, prev, owner = up[keep], ids[keep], owner[keep]
    mem_node = np.concatenate(members_node) if members_node else np.zeros(0, np.int64)
    mem_owner = np.concatenate(members_owner) if members_owner else np.zeros(0, np.intp)
    weights = {c: excl_all[c][mem_owner] for c in clocks}
    return _finish(
        calls.trace,
        clocks,
        mem_node,
        np.concatenate(node_parent) if node_parent else np.zeros(0, np.int64),
        np.concatenate(node_method) if node_method else np.zeros(0, np.int64),
        weights,
        weights,
    )


def _finish(
    trace: Trace,
    clocks: tuple[str, ...],
    member_node: I64,
    node_parent: I64,
    node_method: I64,
    incl: dict[str, I64],
    excl: dict[str, I64],
) -> CallTree:
    """Sum member values per node and order the nodes depth-first (children by decreasing
    inclusive on the first clock)."""
    k = len(node_method)
    calls = np.bincount(member_node, minlength=k).astype(np.int64)
    s_incl = {c: _sum(member_node, incl[c], k) for c in clocks}
    s_excl = {c: _sum(member_node, excl[c], k) for c in clocks}
    weight = s_incl[clocks[0]] if clocks else calls
    # pre-order by an explicit stack over the (merged, usually small) node set
    order = np.lexsort((node_method, -weight, node_parent))
    children: dict[int, list[int]] = {}
    for i in order.tolist():
        children.setdefault(int(node_parent[i]), []).append(i)
    pre: list[int] = []
    depth_of: list[int] = []
    stack = [(i, 0) for i in reversed(children.get(-1, []))]
    while stack:
        i, d = stack.pop()
        pre.append(i)
        depth_of.append(d)
        stack.extend((c, d + 1) for c in reversed(children.get(i, [])))
    perm = np.array(pre, dtype=np.int64)
    new_index = np.empty(k, dtype=np.int64)
    new_index[perm] = np.arange(k)
    par = node_parent[perm]
    return CallTree(
        trace=trace,
        clocks=clocks,
        parent=np.where(par >= 0, new_index[np.maximum(par, 0)], -1).astype(np.int32),
        method=node_method[perm].astype(np.int32),
        depth=np.array(depth_of, dtype=np.int32),
        calls=calls[perm],
        incl={c: v[perm] for c, v in s_incl.items()},
        excl={c: v[perm] for c, v in s_excl.items()},
    )


def _sum(index: I64, values: I64, n: int) -> I64:
    if not len(index):
        return np.zeros(n, dtype=np.int64)
    return np.rint(np.bincount(index, weights=values, minlength=n)).astype(np.int64)
