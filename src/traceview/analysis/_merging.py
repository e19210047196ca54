"""Compiled kernels (numba) behind analysis/calltree.py: merging calls into the nodes of a
top-down tree, caller paths into the nodes of a bottom-up tree, and placing merged nodes in
depth-first order.

A merged node is a distinct (parent node, method) pair, found in an open-addressing hash table
(linear probing, at most half full) whose slots hold node ids; a node's parent, method, depth
and sums live in flat arrays that double when full, and a node's id is always greater than
its parent's. Sums are exact int64 (no float). Imported lazily, by the functions that run a
kernel (importing numba costs ~0.2 s, which `traceview info` never pays).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.jit import njit

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
Ints = npt.NDArray[Any]
# slots, parent, method, depth, calls, incl[node, clock], excl[node, clock]
Store = tuple[I32, I32, I32, I32, I64, I64, I64]

FIRST_NODES = 1024  # initial node capacity; doubled as needed
_MIX = -7046029254386353131  # 0x9E3779B97F4A7C15 as int64 (Fibonacci hashing)


@njit
def _slot(slots: I32, parent: I32, method: I32, up: int, m: int) -> int:
    """The slot holding node (up, m), or the empty slot where it belongs."""
    mask = len(slots) - 1
    h = ((up + 1) * 1_000_003 + m) * _MIX
    i = (h ^ (h >> 29)) & mask
    while True:
        node = slots[i]
        if node < 0 or (parent[node] == up and method[node] == m):
            return i
        i = (i + 1) & mask


@njit
def new_store(cap: int) -> Store:
    """An empty node store for `cap` nodes (twice as many hash slots), sums for two clocks."""
    return (
        np.full(2 * cap, -1, dtype=np.int32),
        np.empty(cap, dtype=np.int32),
        np.empty(cap, dtype=np.int32),
        np.empty(cap, dtype=np.int32),
        np.zeros(cap, dtype=np.int64),
        np.zeros((cap, 2), dtype=np.int64),
        np.zeros((cap, 2), dtype=np.int64),
    )


@njit
def _grown(store: Store, k: int) -> Store:
    """`store` (holding `k` nodes) with twice the capacity, its hash slots rebuilt."""
    _, parent, method, depth, calls, incl, excl = store
    out = new_store(2 * len(parent))
    slots = out[0]
    out[1][:k] = parent[:k]
    out[2][:k] = method[:k]
    out[3][:k] = depth[:k]
    out[4][:k] = calls[:k]
    out[5][:k] = incl[:k]
    out[6][:k] = excl[:k]
    for node in range(k):
        slots[_slot(slots, out[1], out[2], parent[node], method[node])] = node
    return out


@njit
def _node(slots: I32, parent: I32, method: I32, depth: I32, k: int, up: int, m: int) -> int:
    """The id of node (up, m); a new one is `k` (the caller makes room first)."""
    i = _slot(slots, parent, method, up, m)
    node = slots[i]
    if node >= 0:
        return int(node)
    slots[i] = k
    parent[k] = up
    method[k] = m
    depth[k] = 0 if up < 0 else depth[up] + 1
    return k


@njit
def _deeper(rows: I64, nodes: I64) -> tuple[I64, I64]:
    """The two stacks of open calls with twice the room."""
    top = len(rows)
    more_rows = np.empty(2 * top, dtype=np.int64)
    more_nodes = np.empty(2 * top, dtype=np.int64)
    more_rows[:top] = rows
    more_nodes[:top] = nodes
    return more_rows, more_nodes


@njit
def merge_calls(
    parent: Ints,
    method: Ints,
    lo: I64,
    hi: I64,
    enter: Ints,
    leave: Ints,
    times0: I64,
    times1: I64,
    incl0: I64,
    incl1: I64,
    n_clocks: int,
    from_events: bool,
) -> tuple[Store, int]:
    """The top-down nodes of the calls in rows [lo[j], hi[j]) of a call table, and their
    count. A segment may start inside a thread: its first row's callers become nodes without
    calls (merging the pieces adds them up right).

    A call's inclusive time on clock c is `times_c[leave[i]] - times_c[enter[i]]` (the event
    time columns) when `from_events`, else `incl_c[i]`."""
    store = new_store(FIRST_NODES)
    k = 0
    rows = np.empty(64, dtype=np.int64)  # the open calls (rows) and their nodes
    nodes = np.empty(64, dtype=np.int64)
    for j in range(len(lo)):
        first, end = lo[j], hi[j]
        if first >= end:
            continue
        depth_first = 0
        r = parent[first]
        while r >= 0:
            depth_first += 1
            r = parent[r]
        chain = np.empty(depth_first, dtype=np.int64)  # callers of `first`, outermost first
        r = parent[first]
        for x in range(depth_first - 1, -1, -1):
            chain[x] = r
            r = parent[r]
        top = 0
        up = -1
        for x in range(depth_first):
            if k == len(store[1]):
                store = _grown(store, k)
            up = _node(store[0], store[1], store[2], store[3], k, up, method[chain[x]])
            if up == k:
                k += 1
            if top == len(rows):
                rows, nodes = _deeper(rows, nodes)
            rows[top] = chain[x]
            nodes[top] = up
            top += 1
        i = first
        while i < end:
            slots, n_parent, n_method, n_depth, n_calls, n_incl, n_excl = store
            i, k, top = _merge_rows(
                i, end, parent, method, enter, leave, times0, times1, incl0, incl1, n_clocks,
                from_events, slots, n_parent, n_method, n_depth, n_calls, n_incl, n_excl, k,
                rows, nodes, top,
            )  # fmt: skip
            if k == len(store[1]):
                store = _grown(store, k)
            if top == len(rows):
                rows, nodes = _deeper(rows, nodes)
    return store, k


@njit
def _merge_rows(
    i: int,
    end: int,
    parent: Ints,
    method: Ints,
    enter: Ints,
    leave: Ints,
    times0: I64,
    times1: I64,
    incl0: I64,
    incl1: I64,
    n_clocks: int,
    from_events: bool,
    slots: I32,
    n_parent: I32,
    n_method: I32,
    n_depth: I32,
    n_calls: I64,
    n_incl: I64,
    n_excl: I64,
    k: int,
    rows: I64,
    nodes: I64,
    top: int,
) -> tuple[int, int, int]:
    """Merge rows i.. of a segment until `end`, or until the node store or the stack of open
    calls is full; return where it stopped, the node count and the stack's height.

    One step per call in pre-order: pop the stack to the call's parent (its node is the
    call's parent node), find or add the node (parent node, method), count the call and add
    its time to the node's inclusive and exclusive and take it from the parent node's
    exclusive (so exclusive = inclusive - the children's inclusive, as with the calls)."""
    mask = len(slots) - 1
    cap = len(n_parent)
    while i < end and k < cap and top < len(rows):
        p = parent[i]
        while top > 0 and rows[top - 1] != p:
            top -= 1
        up = nodes[top - 1] if top > 0 else -1
        m = method[i]
        h = ((up + 1) * 1_000_003 + m) * _MIX
        at = (h ^ (h >> 29)) & mask
        while True:
            node = slots[at]
            if node < 0 or (n_parent[node] == up and n_method[node] == m):
                break
            at = (at + 1) & mask
        if node < 0:
            node = k
            slots[at] = k
            n_parent[k] = up
            n_method[k] = m
            n_depth[k] = 0 if up < 0 else n_depth[up] + 1
            k += 1
        n_calls[node] += 1
        if from_events:
            t0 = times0[leave[i]] - times0[enter[i]]
            t1 = (times1[leave[i]] - times1[enter[i]]) if n_clocks > 1 else 0
        else:
            t0 = incl0[i]
            t1 = incl1[i] if n_clocks > 1 else 0
        n_incl[node, 0] += t0
        n_incl[node, 1] += t1
        n_excl[node, 0] += t0
        n_excl[node, 1] += t1
        if up >= 0:
            n_excl[up, 0] -= t0
            n_excl[up, 1] -= t1
        rows[top] = i
        nodes[top] = node
        top += 1
        i += 1
    return i, k, top


@njit
def absorb(store: Store, k: int, other: Store, k_other: int) -> tuple[Store, int]:
    """`store` (k nodes) with the nodes of `other` added: each of its nodes (parents first)
    found or made under the node its parent became, its sums added."""
    where = np.empty(k_other, dtype=np.int64)
    o_parent, o_method = other[1], other[2]
    for j in range(k_other):
        if k == len(store[1]):
            store = _grown(store, k)
        up = where[o_parent[j]] if o_parent[j] >= 0 else -1
        node = _node(store[0], store[1], store[2], store[3], k, up, o_method[j])
        if node == k:
            k += 1
        where[j] = node
        store[4][node] += other[4][j]
        for c in range(2):
            store[5][node, c] += other[5][j, c]
            store[6][node, c] += other[6][j, c]
    return store, k


@njit
def merge_callers(
    parent: I32, method: I32, calls: I64, excl0: I64, excl1: I64, max_depth: int
) -> tuple[Store, int]:
    """The bottom-up nodes of a top-down tree: for each top-down node, its method then its
    callers (up to `max_depth` of them) as a path of bottom-up nodes, each counting the node's
    calls and exclusive time (kept in both `incl` and `excl` of the store)."""
    store = new_store(FIRST_NODES)
    k = 0
    for owner in range(len(method)):
        up = -1
        at = owner
        for _ in range(max_depth + 1):
            if k == len(store[1]):
                store = _grown(store, k)
            node = _node(store[0], store[1], store[2], store[3], k, up, method[at])
            if node == k:
                k += 1
            store[4][node] += calls[owner]
            store[5][node, 0] += excl0[owner]
            store[5][node, 1] += excl1[owner]
            up = node
            at = parent[at]
            if at < 0:
                break
    return store, k


@njit
def preorder(parent: I32, order: I64) -> I64:
    """Depth-first position of each node (ids: parents first), given `order`: the nodes with
    siblings together, groups by increasing parent id (roots first), each group in the order
    siblings are placed."""
    k = len(parent)
    size = np.ones(k, dtype=np.int64)
    for i in range(k - 1, -1, -1):
        if parent[i] >= 0:
            size[parent[i]] += size[i]
    pos = np.empty(k, dtype=np.int64)
    cursor = np.empty(k, dtype=np.int64)  # next free position under each node
    roots = 0
    for j in order:
        p = parent[j]
        if p < 0:
            pos[j] = roots
            roots += size[j]
        else:
            pos[j] = cursor[p]
            cursor[p] += size[j]
        cursor[j] = pos[j] + 1
    return pos
