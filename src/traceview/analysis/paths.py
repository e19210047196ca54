"""Call paths across runs: each run's merged trees as one forest over *frames* (a thread's
root, then methods by identity), and the forests of every run aligned into one tree of
paths, compared side against side (`analysis.compare` builds them from sessions).

A path is the sequence of frames from a thread's root: two runs' nodes are the same path when
their frames are equal step by step, whatever the method rows or thread ids of each trace. A
compiled pass (`kernels.merging.place_paths`) finds or makes each node of each forest in one
shared node store under the node its parent became: exact (no hash of a path can collide),
one step per node. Per run, a node's calls, inclusive and exclusive ns go to its aligned
path with `np.bincount` (two nodes of one run meeting in one path, e.g. two method rows with
the same name, are summed); the sides are then compared per path as methods are
(`significance.compare`: medians, robust spread, t) and judged (`significance.judge`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from traceview.analysis.significance import STATES, Bools, Change, compare, judge

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
I8 = npt.NDArray[np.int8]
F64 = npt.NDArray[np.float64]
Frame = tuple[str, ...]  # ("thread", name) or (class, method name, signature)
KINDS = ("topdown", "bottomup")
RESOLUTION_NS = 1000.0  # the traces' timer resolution: the floor of a path's σ̂


class FrameIndex:
    """The frames of a comparison, each numbered once in the order first seen: a thread's
    root is ("thread", name), a method (class, name, signature) as the query shows it."""

    def __init__(self) -> None:
        self.keys: list[Frame] = []
        self._ids: dict[Frame, int] = {}

    def __len__(self) -> int:
        return len(self.keys)

    def ids(self, frames: Sequence[Frame]) -> I32:
        """The number of each of `frames` (new ones are added)."""
        out = np.empty(len(frames), dtype=np.int32)
        for i, f in enumerate(frames):
            n = self._ids.get(f)
            if n is None:
                n = self._ids[f] = len(self.keys)
                self.keys.append(f)
            out[i] = n
        return out

    def name(self, f: int) -> str:
        """`class.method` of a method frame, the name of a thread's."""
        key = self.keys[f]
        if len(key) == 2:
            return key[1]
        return f"{key[0]}.{key[1]}" if key[0] else key[1]

    def label(self, f: int) -> str:
        """`class.method signature` (a thread: its name)."""
        key = self.keys[f]
        return self.name(f) if len(key) == 2 or not key[2] else f"{self.name(f)} {key[2]}"

    def threads(self) -> Bools:
        """Per frame: True for a thread's root."""
        return np.array([len(k) == 2 for k in self.keys], dtype=bool)


@dataclass(frozen=True, eq=False)
class Forest:
    """One run's merged paths on one clock, in an order with parents first (`parent[i] < i`,
    -1 for roots): `frame` (an index into the run's or the comparison's frames), `calls`,
    `incl`, `excl` ns. Top-down: roots are threads. Bottom-up: roots are methods with their
    exclusive time, children their callers (`incl` and `excl` both hold that time)."""

    parent: I32
    frame: I32
    calls: I64
    incl: I64
    excl: I64

    def __len__(self) -> int:
        return len(self.frame)

    def renumbered(self, lut: I32) -> Forest:
        """The same forest with frame `f` renamed `lut[f]`."""
        return Forest(self.parent, lut[self.frame], self.calls, self.incl, self.excl)


def forest_of(parts: Sequence[tuple[int, I32, I32, I64, I64, I64]]) -> Forest:
    """A forest from merged trees, one per thread: each part is (thread frame, parent,
    method frame, calls, incl, excl) of a tree in pre-order; the thread becomes a root node
    holding Σ of its tree's roots' inclusive time (no calls, no exclusive time)."""
    cols: list[list[npt.NDArray[np.int64]]] = [[], [], [], [], []]
    at = 0
    for thread, parent, frame, calls, incl, excl in parts:
        n = len(frame)
        root = np.array([-1], dtype=np.int64)
        up = np.where(parent >= 0, parent.astype(np.int64) + at + 1, at)
        total = incl[parent < 0].sum()
        cols[0] += [root, up]
        cols[1] += [np.array([thread], dtype=np.int64), frame.astype(np.int64)]
        cols[2] += [np.zeros(1, dtype=np.int64), calls.astype(np.int64)]
        cols[3] += [np.array([total], dtype=np.int64), incl.astype(np.int64)]
        cols[4] += [np.zeros(1, dtype=np.int64), excl.astype(np.int64)]
        at += n + 1
    if not cols[0]:
        empty = np.zeros(0, dtype=np.int64)
        return Forest(empty.astype(np.int32), empty.astype(np.int32), empty, empty, empty)
    par, frm, calls_, incl_, excl_ = (np.concatenate(c) for c in cols)
    return Forest(par.astype(np.int32), frm.astype(np.int32), calls_, incl_, excl_)


def inverted(forest: Forest, max_depth: int = 64) -> Forest:
    """The bottom-up forest of a top-down one: each node's exclusive time to its frame, then
    to each caller up to `max_depth` of them (the thread's root is the last caller)."""
    from traceview.analysis.kernels import merging as kernels

    store, k = kernels.merge_callers(
        forest.parent, forest.frame, forest.calls, forest.excl, forest.excl, max_depth
    )
    nodes, sums = store[1], store[2]
    weight = np.ascontiguousarray(sums[:k, 1])
    return Forest(
        np.ascontiguousarray(nodes[:k, 0]),
        np.ascontiguousarray(nodes[:k, 1]),
        np.ascontiguousarray(sums[:k, 0]),
        weight,
        weight,
    )


@dataclass(frozen=True, eq=False)
class PathDiff:
    """Paths of both sides aligned, one row per path seen in any run, in depth-first
    pre-order (`parent[i] < i`, -1 for roots; siblings by decreasing inclusive time, the
    larger side's median, ties by frame). `frame` indexes the comparison's frames; `incl`,
    `excl`, `calls`: each a `Change` (medians per side, spread, t); `on_base`/`on_cand`: the
    path is in at least one run of that side; `gated`: its metric time is at least the
    minimum on either side and its last frame matches the method patterns; `state`: an index
    into `STATES` (`significance.judge`)."""

    kind: str
    parent: I32
    frame: I32
    depth: I32
    incl: Change
    excl: Change
    calls: Change
    on_base: Bools
    on_cand: Bools
    gated: Bools
    state: I8

    def __len__(self) -> int:
        return len(self.frame)

    def state_name(self, row: int) -> str:
        """The state word of `row`: new, gone, slower, faster or noise."""
        return STATES[int(self.state[row])]

    def change(self, metric: str) -> Change:
        """The `Change` of "incl" or "excl"."""
        return self.incl if metric == "incl" else self.excl

    def steps(self, row: int) -> list[int]:
        """The rows from the root down to `row`."""
        out = [row]
        while self.parent[out[-1]] >= 0:
            out.append(int(self.parent[out[-1]]))
        return out[::-1]


@dataclass(frozen=True)
class Judging:
    """What decides a path's state: the metric ("incl" or "excl"), the relative threshold,
    the minimum time (ns), the critical t (None: no spread known) and, per frame, whether
    the method patterns choose it."""

    metric: str
    fail_above: float
    min_time_ns: int
    critical: float | None
    chosen: Bools


def align(
    base: Sequence[Forest], cand: Sequence[Forest], judging: Judging, kind: str = "topdown"
) -> PathDiff:
    """Align the forests of both sides (frames already shared) and compare them per path."""
    from traceview.analysis.kernels import merging as kernels

    store = kernels.new_store(kernels.FIRST_NODES)
    k = 0
    where: list[I64] = []
    for f in (*base, *cand):
        store, k, w = kernels.place_paths(store, k, f.parent, f.frame)
        where.append(w)
    up, frame, depth = (np.ascontiguousarray(store[1][:k, c]) for c in range(3))

    def side(runs: Sequence[Forest], at: Sequence[I64], what: str) -> F64:
        out = np.zeros((len(runs), k))
        for r, (f, w) in enumerate(zip(runs, at, strict=True)):
            out[r] = np.bincount(w, weights=getattr(f, what), minlength=k)
        return out

    def seen(at: Sequence[I64]) -> Bools:
        found = np.zeros(k, dtype=bool)
        for w in at:
            found[w] = True
        return found

    wb, wc = where[: len(base)], where[len(base) :]
    ch = {
        what: compare(
            side(base, wb, what),
            side(cand, wc, what),
            judging.critical,
            1.0 if what == "calls" else RESOLUTION_NS,
        )
        for what in ("incl", "excl", "calls")
    }
    on_base, on_cand = seen(wb), seen(wc)
    order = _preorder(up, frame, np.maximum(ch["incl"].base, ch["incl"].cand))
    perm = np.empty(k, dtype=np.int64)
    perm[order] = np.arange(k)  # perm[new] = old
    parent = np.where(up[perm] >= 0, order[np.maximum(up[perm], 0)], -1).astype(np.int32)
    changes = {w: _take(c, perm) for w, c in ch.items()}
    m = changes[judging.metric]
    frames = frame[perm]
    gated = judging.chosen[frames] & (np.maximum(m.base, m.cand) >= judging.min_time_ns)
    return PathDiff(
        kind=kind,
        parent=parent,
        frame=frames,
        depth=depth[perm],
        incl=changes["incl"],
        excl=changes["excl"],
        calls=changes["calls"],
        on_base=on_base[perm],
        on_cand=on_cand[perm],
        gated=gated,
        state=judge(m, on_base[perm], on_cand[perm], gated, judging.fail_above),
    )


def _preorder(up: I32, frame: I32, weight: F64) -> I64:
    """Depth-first position of each store node (ids: parents first), siblings by decreasing
    `weight`, ties by frame."""
    from traceview.analysis.kernels import merging as kernels

    order = np.lexsort((frame, -weight, up))  # siblings together, in order
    pos: I64 = kernels.preorder(up, order)
    return pos


def _take(ch: Change, rows: I64) -> Change:
    """`ch` with its rows in the order `rows`."""
    return Change(
        ch.base[rows],
        ch.cand[rows],
        ch.base_spread[rows],
        ch.cand_spread[rows],
        ch.delta[rows],
        ch.rel[rows],
        ch.t[rows],
        ch.significant[rows],
        ch.known,
    )


__all__ = [
    "KINDS",
    "STATES",
    "Forest",
    "Frame",
    "FrameIndex",
    "Judging",
    "PathDiff",
    "align",
    "forest_of",
    "inverted",
]
