"""The viewer's tree and flame answers: `/api/tree` (a call tree, heaviest nodes first, levels
it leaves out summarised as "N more" counts) and `/api/flame` (frames at least a pixel wide in a
window of the flame graph), both over the whole merged tree, nothing dropped unsaid.

Node ids are the rows of the session's merged tree (`analysis/calltree.py`, depth-first
pre-order) for the query, so the answers for one query can be merged by id in the UI.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from traceview.analysis.calltree import CallTree, by_depth
from traceview.analysis.layout.flame import KINDS, FlameLayout, layout
from traceview.analysis.query import Query
from traceview.analysis.session import Session
from traceview.exporters.jsonshape import Json, ints, us, us1

I64 = npt.NDArray[np.int64]
MAX_FLAME_NODES = 30_000
MAX_TREE_NODES = 10_000  # about 0.5 MB of JSON per tree answer
DEFAULT_PX = 2000  # a window without a width: frames narrower than 1/2000 of it are left out


@dataclass(frozen=True)
class Shape:
    """Per node of a merged tree: where its subtree ends (pre-order: `[i, end[i])`), how many
    children it has and their summed width on each clock."""

    end: I64
    kids: I64
    kids_width: dict[str, I64]


def shape(s: Session, tree: CallTree) -> Shape:
    """The subtree ends and child sums of `tree` (kept by the session while the tree is)."""

    def build() -> Shape:
        n = len(tree)
        parent = tree.parent.astype(np.int64)
        size = np.ones(n, dtype=np.int64)
        for at in reversed(by_depth(tree.depth)[1:]):  # deepest first: sizes flow up
            np.add.at(size, parent[at], size[at])
        has = parent >= 0
        kids = np.bincount(parent[has], minlength=n).astype(np.int64)
        widths = {
            c: np.bincount(parent[has], weights=tree.incl[c][has], minlength=n).astype(np.int64)
            for c in tree.clocks
        }
        return Shape(np.arange(n, dtype=np.int64) + size, kids, widths)

    return s.memo("tree-shape", tree, build)


def _tree(s: Session, kind: str, q: Query) -> CallTree:
    if kind not in ("topdown", "bottomup"):
        raise ValueError(f"unknown tree kind {kind!r} (expected topdown or bottomup)")
    if q.clock not in s.clocks:
        raise KeyError(f"this trace has no {q.clock} clock")
    return s.bottom_up(q) if kind == "bottomup" else s.top_down(q)


def _heaviest(rows: I64, width: I64, limit: int) -> I64:
    """The `limit` widest of `rows` (ties: the earlier row), in row order."""
    n = len(rows)
    if n <= limit:
        return rows
    w = width[rows]
    cut = np.partition(w, n - limit)[n - limit]  # the limit-th widest width
    above = np.flatnonzero(w > cut)
    ties = np.flatnonzero(w == cut)[: limit - len(above)]
    picked: I64 = rows[np.sort(np.concatenate([above, ties]))]
    return picked


def tree_answer(
    s: Session,
    kind: str,
    q: Query,
    node: int = -1,
    children: bool = False,
    limit: int = MAX_TREE_NODES,
) -> Json:
    """/api/tree: the nodes of the `kind` tree below `node` (-1: the whole tree; `children`:
    only its children), at most `limit` of them, heaviest first, a node only with its parent.
    Every node answered says how many of its children the answer leaves out (`more`) and their
    time (`more_width`), so the UI shows "N more (x ms)" and every level adds up to its
    parent; `roots_more` and `roots_more_width` say the same of the roots (node -1)."""
    tree = _tree(s, kind, q)
    clock = q.clock
    sh = shape(s, tree)
    width = tree.incl[clock].astype(np.int64)
    n = len(tree)
    if not -1 <= node < n:
        raise ValueError(f"no node {node}")
    lo, hi = (0, n) if node < 0 else (node + 1, int(sh.end[node]))
    parent = tree.parent.astype(np.int64)
    rows = np.arange(lo, hi, dtype=np.int64)
    if children:
        rows = rows[parent[lo:hi] == node]
    wanted = len(rows)
    rows = _heaviest(rows, width, max(1, min(limit, MAX_TREE_NODES)))
    keep = np.zeros(n, dtype=bool)
    keep[rows] = True
    if node >= 0:
        keep[node] = True
    for at in by_depth(tree.depth[rows])[1:]:  # only under a node answered (heavier children)
        at_rows = rows[at]
        par = parent[at_rows]
        keep[at_rows] &= (par < 0) | keep[np.maximum(par, 0)]
    out = _answer(kind, clock, tree, sh, np.flatnonzero(keep), node)
    out["truncated"] = bool(len(out["nodes"]["id"]) < wanted + (node >= 0))
    return out


def _answer(kind: str, clock: str, tree: CallTree, sh: Shape, rows: I64, node: int) -> Json:
    """The answer holding `rows` (parent-closed, in pre-order): each node's children left out
    of it (`more`, `more_width`), the roots' too."""
    n = len(tree)
    parent = tree.parent.astype(np.int64)
    width = tree.incl[clock].astype(np.int64)
    answered = np.zeros(n + 1, dtype=np.int64)  # children answered, per parent (+1: roots at 0)
    answered_w = np.zeros(n + 1, dtype=np.int64)
    np.add.at(answered, parent[rows] + 1, 1)
    np.add.at(answered_w, parent[rows] + 1, width[rows])
    is_root = parent < 0
    more = sh.kids[rows] - answered[rows + 1]
    more_w = sh.kids_width[clock][rows] - answered_w[rows + 1]
    return {
        "kind": kind,
        "clock": clock,
        "total": us1(int(width[is_root].sum())),
        "node": node,
        "size": n,
        "roots_more": int(is_root.sum()) - int(answered[0]),
        "roots_more_width": us1(int(width[is_root].sum()) - int(answered_w[0])),
        "nodes": {
            "id": ints(rows),
            "method": ints(tree.method[rows]),
            "depth": ints(tree.depth[rows]),
            "parent": ints(parent[rows]),
            "width": us(width[rows]),
            "self": us(tree.excl[clock][rows]),
            "calls": ints(tree.calls[rows]),
            "more": ints(more),
            "more_width": us(more_w),
        },
        "truncated": False,
    }


def find_answer(
    s: Session, kind: str, q: Query, methods: tuple[int, ...], after: int, direction: int
) -> Json:
    """/api/tree?match=…: the next node (`direction` 1, or -1: the previous) after node
    `after` in the tree's pre-order (-1: from the start; past the end it wraps) whose method
    is one of `methods` (the rows the find box matches), answered with its path from the
    root (the UI merges it as any answer); `found` its id, -1 when no node matches."""
    if direction not in (1, -1):
        raise ValueError("dir must be 1 or -1")
    tree = _tree(s, kind, q)
    sh = shape(s, tree)
    hits = np.flatnonzero(np.isin(tree.method, np.asarray(methods, dtype=np.int64)))
    found = -1
    if len(hits):
        if direction > 0:
            k = int(np.searchsorted(hits, after, side="right"))
            found = int(hits[k % len(hits)])
        else:
            k = int(np.searchsorted(hits, after if after >= 0 else len(tree), side="left")) - 1
            found = int(hits[k % len(hits)])
    path: list[int] = []
    at = found
    while at >= 0:  # the found node's ancestors: one per level
        path.append(at)
        at = int(tree.parent[at])
    out = _answer(kind, q.clock, tree, sh, np.array(path[::-1], dtype=np.int64), -1)
    out["found"] = found
    return out


def full_layout(s: Session, kind: str, q: Query) -> FlameLayout:
    """The whole `kind` tree of `q` laid out, no frame left out (kept while its tree is)."""
    if kind not in KINDS:
        raise ValueError(f"unknown flame kind {kind!r} (expected one of {', '.join(KINDS)})")
    if q.clock not in s.clocks:
        raise KeyError(f"this trace has no {q.clock} clock")
    tree = s.bottom_up(q) if kind == "bottomup" else s.top_down(q)
    return s.memo(
        "flame-layout",
        (tree, kind, q.clock),
        lambda: layout(tree, kind, q.clock, 0.0, methods=s.methods(q)),
    )


def flame_answer(
    s: Session,
    kind: str,
    q: Query,
    x0: float | None = None,
    x1: float | None = None,
    px: int = DEFAULT_PX,
) -> Json:
    """/api/flame: the frames of the `kind` flame graph inside the window `[x0, x1)` (µs on its
    x axis; default the whole graph) at least one pixel wide when the window is `px` pixels
    wide, x/width in µs of the clock; with t0/t1 every call counts its time clipped to the
    range. Frames narrower than a pixel are counted in `dropped`; past 30 000 frames the
    deepest levels are cut (`truncated`)."""
    fl = full_layout(s, kind, q)
    lo = 0 if x0 is None else round(x0 * 1000)
    hi = fl.total if x1 is None else round(x1 * 1000)
    if not 0 < px <= 100_000:
        raise ValueError("px must be 1 to 100000")
    if hi <= lo:
        lo, hi = 0, max(fl.total, 1)
    inside = (fl.x < hi) & (fl.x + fl.width > lo) & (fl.width > 0)
    wide = inside & (fl.width * px >= hi - lo)  # a parent is wider than its child: all kept
    rows = np.flatnonzero(wide)
    dropped = int(inside.sum()) - len(rows)
    truncated = False
    if len(rows) > MAX_FLAME_NODES:  # keep whole levels from the top while they fit
        per_depth = np.cumsum(np.bincount(fl.depth[rows]))
        max_depth = int(np.searchsorted(per_depth, MAX_FLAME_NODES, side="right")) - 1
        rows = rows[fl.depth[rows] <= max_depth]
        truncated = True
    new = np.full(len(fl.method), -1, dtype=np.int64)  # parents renumbered to the rows sent
    new[rows] = np.arange(len(rows))
    par = fl.parent[rows]
    parent = np.where(par >= 0, new[np.maximum(par, 0)], -1)
    return {
        "kind": fl.kind,
        "clock": fl.clock,
        "total": us1(fl.total),
        "window": [us1(lo), us1(hi)],
        "px": px,
        "dropped": dropped,
        "nodes": {
            "method": ints(fl.method[rows]),
            "depth": ints(fl.depth[rows]),
            "parent": ints(parent),
            "x": us(fl.x[rows]),
            "width": us(fl.width[rows]),
            "self": us(fl.self_time[rows]),
            "calls": ints(fl.calls[rows]),
        },
        "truncated": truncated,
    }
