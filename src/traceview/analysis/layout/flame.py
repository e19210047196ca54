"""Flame graph, top-down and bottom-up layouts as data, on top of `analysis/calltree.py`.

`flame(calls, kind, clock)` merges the calls with `calltree.top_down` / `calltree.bottom_up`
and lays the nodes out: each node gets `x` (offset from the left, ns) and `width` (its
inclusive ns on `clock`) inside its parent. Kinds: "graph" (a classic flame graph: siblings
in name order), "topdown" (siblings by decreasing time) and "bottomup" (roots are methods by
exclusive time, children their callers). Nodes narrower than `min_fraction` of the total are
dropped (with their subtrees) and counted. The viewer paints the result; nothing is computed
in JavaScript.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from traceview.analysis.calls import CallTable
from traceview.analysis.calltree import CallTree, by_depth, invert, top_down
from traceview.model import MethodTable

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
KINDS = ("graph", "topdown", "bottomup")
MIN_FRACTION = 1 / 2000


@dataclass(frozen=True)
class FlameLayout:
    """Laid-out nodes in pre-order (`parent[i] < i`, -1 for roots), times in ns on `clock`.

    `total` is the width of the whole graph (Σ root widths); `dropped` counts the nodes left
    out because they were narrower than the threshold (their time stays in their parents).
    """

    kind: str
    clock: str
    total: int
    method: I32
    depth: I32
    parent: I64
    x: I64
    width: I64
    self_time: I64
    calls: I64
    dropped: int


def flame(
    calls: CallTable,
    kind: str = "graph",
    clock: str | None = None,
    threads: Iterable[int] | None = None,
    min_fraction: float = MIN_FRACTION,
) -> FlameLayout:
    """The merged call tree of `threads` laid out on `clock` (default: the first clock)."""
    return flame_of_tree(top_down(calls, threads), kind, clock, min_fraction)


def flame_of_tree(
    tree: CallTree,
    kind: str = "graph",
    clock: str | None = None,
    min_fraction: float = MIN_FRACTION,
) -> FlameLayout:
    """Lay out a top-down tree (from `calltree.top_down`) as `kind` on `clock`; for "bottomup"
    the tree is inverted first (`calltree.invert`, also importable from here; pass an inverted
    tree to `layout` to reuse one)."""
    if kind not in KINDS:
        raise ValueError(f"unknown flame kind {kind!r} (expected one of {', '.join(KINDS)})")
    c = clock or tree.clocks[0]
    if c not in tree.clocks:
        raise KeyError(f"this trace has no {c} clock")
    return layout(invert(tree) if kind == "bottomup" else tree, kind, c, min_fraction)


def kept_nodes(
    width: npt.NDArray[np.integer] | npt.NDArray[np.floating],
    parent: I64,
    depth: I64,
    min_fraction: float,
) -> tuple[I64, I64]:
    """The rows of a tree's nodes drawn: wider than 0 and at least `min_fraction` of the roots'
    total `width`, under a drawn parent; and each one's parent among them (-1: a root)."""
    total = float(width[parent < 0].sum())
    keep = (width > 0) & (width >= total * min_fraction)
    for at in by_depth(depth)[1:]:  # a node stays only under a kept parent
        keep[at] &= keep[parent[at]]
    rows = np.flatnonzero(keep)
    new = np.full(len(width), -1, dtype=np.int64)
    new[rows] = np.arange(len(rows))
    par: I64 = np.where(parent[rows] >= 0, new[np.maximum(parent[rows], 0)], -1)
    return rows, par


def layout(
    tree: CallTree,
    kind: str,
    clock: str,
    min_fraction: float = MIN_FRACTION,
    methods: MethodTable | None = None,
) -> FlameLayout:
    """Place the nodes of `tree`: siblings side by side inside their parent (a flame graph
    orders them by the names of `methods`, default the trace's)."""
    width = tree.incl[clock].astype(np.int64)
    depth = tree.depth.astype(np.int64)
    parent = tree.parent.astype(np.int64)
    total = int(width[parent < 0].sum())
    rows, par = kept_nodes(width, parent, depth, min_fraction)
    method = tree.method[rows]
    w = width[rows]
    dep = depth[rows]
    # sibling order: by name for a flame graph, by decreasing width otherwise
    if kind == "graph":
        names = methods or tree.trace.methods
        # Python's sort of str, not a numpy string array: that one is fixed-width (methods ×
        # longest name × 4 bytes: 2,000 methods and one 10^6-character name ask for 8 GB)
        order = sorted(range(len(names)), key=names.full_name)
        rank = np.empty(len(names), dtype=np.int64)
        rank[order] = np.arange(len(names))
        sib = np.lexsort((np.arange(len(rows)), rank[method], par))
    else:
        sib = np.lexsort((np.arange(len(rows)), method, -w, par))
    # offset of each node inside its parent = Σ widths of the siblings placed before it
    sw = w[sib]
    csum = np.cumsum(sw) - sw
    group_start = np.ones(len(sib), dtype=bool)
    group_start[1:] = par[sib][1:] != par[sib][:-1]
    base = np.maximum.accumulate(np.where(group_start, np.arange(len(sib)), 0))
    offset = np.empty(len(rows), dtype=np.int64)
    offset[sib] = csum - csum[base]
    x = offset.copy()
    for at in by_depth(dep)[1:]:
        x[at] += x[par[at]]
    return FlameLayout(
        kind=kind,
        clock=clock,
        total=total,
        method=method.astype(np.int32),
        depth=dep.astype(np.int32),
        parent=par,
        x=x,
        width=w,
        self_time=tree.excl[clock][rows].astype(np.int64),
        calls=tree.calls[rows].astype(np.int64),
        dropped=int(len(width) - len(rows)),
    )
