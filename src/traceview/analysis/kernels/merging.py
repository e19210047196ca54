"""Compiled kernels (numba) behind analysis/calltree.py: merging calls into the nodes of a
top-down tree, caller paths into the nodes of a bottom-up tree, and placing merged nodes in
depth-first order.

A merged node is a distinct (parent node, method) pair, found in an open-addressing hash table
(linear probing, at most half full) whose slots hold node ids. A node store is three arrays
that double when full: the slots, `nodes[id] = (parent, method, depth)` (int32) and
`sums[id] = (calls, inclusive on the first clock, on the second)` (int64: exact sums, no
float). A node's id is always greater than its parent's. Imported lazily, by the functions
that run a kernel (importing numba costs ~0.2 s, which `traceview info` never pays).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.kernels.edges import call_time, kept
from traceview.analysis.kernels.jit import njit

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
Ints = npt.NDArray[Any]
Store = tuple[I32, I32, I64]  # slots, nodes (parent, method, depth), sums (calls, incl x2)

FIRST_NODES = 1024  # initial node capacity; doubled as needed
FIRST_DEPTH = 64  # initial room of the stack of open calls; doubled as needed
_MIX = -7046029254386353131  # 0x9E3779B97F4A7C15 as int64 (Fibonacci hashing)


@njit
def _slot(slots: I32, nodes: I32, up: int, m: int) -> int:
    """The slot holding node (up, m), or the empty slot where it belongs."""
    mask = len(slots) - 1
    h = ((up + 1) * 1_000_003 + m) * _MIX
    i = (h ^ (h >> 29)) & mask
    while True:
        node = slots[i]
        if node < 0 or (nodes[node, 0] == up and nodes[node, 1] == m):
            return i
        i = (i + 1) & mask


@njit
def new_store(cap: int) -> Store:
    """An empty node store for `cap` nodes (twice as many hash slots)."""
    slots = np.full(2 * cap, -1, dtype=np.int32)
    return slots, np.empty((cap, 3), dtype=np.int32), np.zeros((cap, 3), dtype=np.int64)


@njit
def _grown(store: Store, k: int) -> Store:
    """`store` (holding `k` nodes) with twice the capacity, its hash slots rebuilt."""
    _, nodes, sums = store
    slots, more_nodes, more_sums = new_store(2 * len(nodes))
    for node in range(k):
        for c in range(3):
            more_nodes[node, c] = nodes[node, c]
            more_sums[node, c] = sums[node, c]
        slots[_slot(slots, more_nodes, nodes[node, 0], nodes[node, 1])] = node
    return slots, more_nodes, more_sums


@njit
def _node(store: Store, k: int, up: int, m: int) -> int:
    """The id of node (up, m); a new one is `k` (the caller makes room first)."""
    slots, nodes, _ = store
    i = _slot(slots, nodes, up, m)
    node = slots[i]
    if node >= 0:
        return int(node)
    slots[i] = k
    nodes[k, 0] = up
    nodes[k, 1] = m
    nodes[k, 2] = 0 if up < 0 else nodes[up, 2] + 1
    return k


@njit
def _deeper(stack: I64) -> I64:
    """`stack` with twice the room (rows: the open calls, nodes, last children)."""
    out = np.empty((stack.shape[0], 2 * stack.shape[1]), dtype=np.int64)
    for r in range(stack.shape[0]):
        for c in range(stack.shape[1]):
            out[r, c] = stack[r, c]
    return out


@njit
def merge_calls(
    parent: Ints,
    subtree_end: Ints,
    method: Ints,
    lo: I64,
    hi: I64,
    enter: Ints,
    leave: Ints,
    times0: I64,
    times1: I64,
    n_clocks: int,
    clip: bool,
    range_times: I64,
    bounds: I64,
) -> tuple[Store, int]:
    """The top-down nodes of the calls in rows [lo[j], hi[j]) of a call table (increasing,
    disjoint), and their count. A call's inclusive time on clock c is
    `times_c[leave[i]] - times_c[enter[i]]` (the event time columns).

    With `clip`, only the calls of segment j overlapping [bounds[j, 0], bounds[j, 1]) on
    `range_times`' clock count, each with its times clipped to [bounds[j, 2], bounds[j, 3]]
    on the first clock and [bounds[j, 4], bounds[j, 5]] on the second
    (analysis/ranges.py); a call whose caller does not count goes under its nearest ancestor
    that does (as does one whose caller is in no segment). The first row's callers that
    count become nodes without calls: a piece of the rows may start inside a call, and
    merging the pieces adds them up."""
    store = new_store(FIRST_NODES)
    k = 0
    # per open call: its subtree's end row, its node, and the method and node of its last
    # child so far (column 0 of the last two is for the roots)
    stack = np.empty((4, FIRST_DEPTH), dtype=np.int64)
    stack[2, 0] = -1
    top = 0
    for j in range(len(lo)):
        if lo[j] >= hi[j]:
            continue
        b = bounds[j]
        if top == 0 and k == 0:  # the first row: its counted callers, outermost first
            depth_first = 0
            r = parent[lo[j]]
            while r >= 0:
                if not clip or kept(range_times[enter[r]], range_times[leave[r]], b[0], b[1]):
                    depth_first += 1
                r = parent[r]
            chain = np.empty(depth_first, dtype=np.int64)
            r = parent[lo[j]]
            x = depth_first
            while r >= 0:
                if not clip or kept(range_times[enter[r]], range_times[leave[r]], b[0], b[1]):
                    x -= 1
                    chain[x] = r
                r = parent[r]
            up = -1
            for x in range(depth_first):
                if k == len(store[1]):
                    store = _grown(store, k)
                up = _node(store, k, up, method[chain[x]])
                if up == k:
                    k += 1
                if top + 1 >= stack.shape[1]:
                    stack = _deeper(stack)
                stack[0, top] = subtree_end[chain[x]]
                stack[1, top] = up
                top += 1
                stack[2, top] = -1
        i = lo[j]
        while i < hi[j]:
            i, k, top = _merge_rows(
                i, hi[j], subtree_end, method, enter, leave, times0, times1, n_clocks, clip,
                range_times, b, store, k, stack, top,
            )  # fmt: skip
            if k == len(store[1]):
                store = _grown(store, k)
            if top + 1 >= stack.shape[1]:
                stack = _deeper(stack)
    return store, k


@njit
def _merge_rows(
    i: int,
    end: int,
    subtree_end: Ints,
    method: Ints,
    enter: Ints,
    leave: Ints,
    times0: I64,
    times1: I64,
    n_clocks: int,
    clip: bool,
    range_times: I64,
    b: I64,
    store: Store,
    k: int,
    stack: I64,
    top: int,
) -> tuple[int, int, int]:
    """Merge rows i.. of a segment until `end`, or until the node store or the stack of open
    calls is full; return where it stopped, the node count and the stack's height.

    One step per call in pre-order: pop the open calls whose subtree ends at or before it (the
    top left is its nearest merged ancestor, whose node is the call's parent node), find or
    add the node (parent node, method) — the parent's previous child's node when the method
    is the same (a loop calling one method) — then count the call and add its time to the
    node's inclusive. With `clip`, a call outside the range `b` is passed over (never open)
    and a counted one adds its clipped times."""
    slots, nodes, sums = store
    ends, open_nodes, kid_method, kid_node = stack[0], stack[1], stack[2], stack[3]
    mask = len(slots) - 1
    cap = len(nodes)
    room = len(ends) - 1
    while i < end and k < cap and top < room:
        if clip and not kept(range_times[enter[i]], range_times[leave[i]], b[0], b[1]):
            i += 1
            continue
        while top > 0 and ends[top - 1] <= i:
            top -= 1
        up = open_nodes[top - 1] if top > 0 else -1
        m = method[i]
        if kid_method[top] == m:
            node = kid_node[top]
        else:
            h = ((up + 1) * 1_000_003 + m) * _MIX
            at = (h ^ (h >> 29)) & mask
            while True:
                node = slots[at]
                if node < 0 or (nodes[node, 0] == up and nodes[node, 1] == m):
                    break
                at = (at + 1) & mask
            if node < 0:
                node = k
                slots[at] = k
                nodes[k, 0] = up
                nodes[k, 1] = m
                nodes[k, 2] = 0 if up < 0 else nodes[up, 2] + 1
                k += 1
            kid_method[top] = m
            kid_node[top] = node
        sums[node, 0] += 1
        if n_clocks > 0:
            sums[node, 1] += call_time(times0, enter[i], leave[i], clip, b[2], b[3])
        if n_clocks > 1:
            sums[node, 2] += call_time(times1, enter[i], leave[i], clip, b[4], b[5])
        ends[top] = subtree_end[i]
        open_nodes[top] = node
        top += 1
        kid_method[top] = -1
        i += 1
    return i, k, top


@njit
def absorb(store: Store, k: int, other: Store, k_other: int) -> tuple[Store, int]:
    """`store` (k nodes) with the nodes of `other` added: each of its nodes (parents first)
    found or made under the node its parent became, its sums added."""
    where = np.empty(k_other, dtype=np.int64)
    o_nodes, o_sums = other[1], other[2]
    for j in range(k_other):
        if k == len(store[1]):
            store = _grown(store, k)
        up = where[o_nodes[j, 0]] if o_nodes[j, 0] >= 0 else -1
        node = _node(store, k, up, o_nodes[j, 1])
        if node == k:
            k += 1
        where[j] = node
        for c in range(3):
            store[2][node, c] += o_sums[j, c]
    return store, k


@njit
def place_paths(store: Store, k: int, parent: Ints, frame: Ints) -> tuple[Store, int, I64]:
    """`store` (k nodes) with the nodes of a forest (ids: parents first; `frame` the key of
    each node's last step) found or made under the node their parent became: paths equal
    step by step meet in one node. Returns the store, its node count and where each forest
    node went (analysis/paths.py aligns the runs of a comparison with it; sums untouched)."""
    where = np.empty(len(parent), dtype=np.int64)
    for j in range(len(parent)):
        if k == len(store[1]):
            store = _grown(store, k)
        up = where[parent[j]] if parent[j] >= 0 else -1
        node = _node(store, k, up, frame[j])
        if node == k:
            k += 1
        where[j] = node
    return store, k, where


@njit
def merge_callers(
    parent: I32, method: I32, calls: I64, excl0: I64, excl1: I64, max_depth: int
) -> tuple[Store, int]:
    """The bottom-up nodes of a top-down tree: for each top-down node, its method then its
    callers (up to `max_depth` of them) as a path of bottom-up nodes, each counting the node's
    calls and exclusive time (in the store's inclusive sums)."""
    store = new_store(FIRST_NODES)
    k = 0
    for owner in range(len(method)):
        up = -1
        at = owner
        for _ in range(max_depth + 1):
            if k == len(store[1]):
                store = _grown(store, k)
            node = _node(store, k, up, method[at])
            if node == k:
                k += 1
            sums = store[2]
            sums[node, 0] += calls[owner]
            sums[node, 1] += excl0[owner]
            sums[node, 2] += excl1[owner]
            up = node
            at = parent[at]
            if at < 0:
                break
    return store, k


@njit
def exclusive(parent: I32, incl: I64) -> I64:
    """Each node's inclusive minus its children's (ids: parents first), per clock column: a
    node's calls' children are exactly the calls of its child nodes."""
    out = incl.copy()
    for i in range(len(parent)):
        if parent[i] >= 0:
            for c in range(incl.shape[1]):
                out[parent[i], c] -= incl[i, c]
    return out


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
