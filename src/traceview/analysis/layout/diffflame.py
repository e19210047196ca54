"""The differential flame graph as data: the aligned call paths of a comparison (a `PathDiff`
of analysis/paths.py, threads at the roots) laid out like a flame graph, each node coloured
by its change. The SVG exporter and a viewer paint it; nothing is computed in JavaScript.

Width: the chosen side's median inclusive ns ("candidate", or "baseline" to see what went
away); siblings in name order, so both sides line up. Medians of runs do not add up: where a
node's children's medians exceed its own, they are scaled to fit inside it (the numbers a
front end shows stay the medians). Colour: the path's state on the comparison's metric —
slower red, faster blue, within noise grey, new and gone full colour — with `intensity`
min(1, |log2(candidate / baseline)|) for slower and faster (a doubling or a halving is full
colour). `only` marks the nodes of one side only. Nodes narrower than `min_fraction` of the
total, or empty on the chosen side, are left out with their subtrees and counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from traceview.analysis.calltree import by_depth
from traceview.analysis.layout.flame import kept_nodes
from traceview.analysis.paths import PathDiff
from traceview.analysis.significance import STATES

I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
F64 = npt.NDArray[np.float64]
SIDES = ("candidate", "baseline")
BOTH, BASE_ONLY, CAND_ONLY = 0, 1, 2


@dataclass(frozen=True, eq=False)
class DiffFlame:
    """Laid-out nodes in pre-order (`parent[i] < i`, -1 for roots): `row` (the path's row in
    the `PathDiff`), `depth`, `x` and `width` in ns on the `side`'s scale (`total`: Σ root
    widths), `state` (an index into `STATES`, on `metric`), `intensity` in [0, 1], `only`
    (`BOTH`, `BASE_ONLY`, `CAND_ONLY`); `dropped` counts the paths left out."""

    side: str
    metric: str
    total: float
    row: I64
    parent: I64
    depth: I64
    x: F64
    width: F64
    state: I8
    intensity: F64
    only: I8
    dropped: int

    def __len__(self) -> int:
        return len(self.row)


def diff_flame(
    paths: PathDiff,
    names: Sequence[str],
    side: str = "candidate",
    metric: str = "excl",
    min_fraction: float = 0.0,
) -> DiffFlame:
    """Lay out `paths` with widths from `side`, siblings ordered by `names` (one per frame),
    coloured by the change of `metric`."""
    if side not in SIDES:
        raise ValueError(f"side must be one of {', '.join(SIDES)}, not {side!r}")
    ch = paths.incl
    width = (ch.cand if side == "candidate" else ch.base).astype(np.float64)
    depth = paths.depth.astype(np.int64)
    parent = paths.parent.astype(np.int64)
    total = float(width[parent < 0].sum())
    rows, par = kept_nodes(width, parent, depth, min_fraction)
    w = width[rows]
    dep = depth[rows]
    # children's widths: Σ per parent; scaled top-down so that they fit the parent as drawn
    kids = np.bincount(par[par >= 0], weights=w[par >= 0], minlength=len(rows))
    drawn = w.copy()
    levels = by_depth(dep)
    for at in levels[1:]:
        p = par[at]
        drawn[at] = w[at] * drawn[p] / np.maximum(np.maximum(w[p], kids[p]), 1e-300)
    # offsets inside the parent: Σ drawn widths of the siblings before, siblings by name
    rank = np.argsort(np.argsort(np.asarray(names, dtype=object), kind="stable"), kind="stable")
    sib = np.lexsort((np.arange(len(rows)), rank[paths.frame[rows]], par))
    sw = drawn[sib]
    csum = np.cumsum(sw) - sw
    start = np.ones(len(sib), dtype=bool)
    start[1:] = par[sib][1:] != par[sib][:-1]
    first = np.maximum.accumulate(np.where(start, np.arange(len(sib)), 0))
    x = np.empty(len(rows))
    x[sib] = csum - csum[first]
    for at in levels[1:]:
        x[at] += x[par[at]]
    return DiffFlame(
        side=side,
        metric=metric,
        total=total,
        row=rows.astype(np.int64),
        parent=par,
        depth=dep,
        x=x,
        width=drawn,
        state=paths.state[rows],
        intensity=intensity(paths, rows, metric),
        only=_only(paths, rows),
        dropped=int(len(width) - len(rows)),
    )


def intensity(paths: PathDiff, rows: I64, metric: str) -> F64:
    """min(1, |log2(candidate / baseline)|) of `metric` for slower and faster rows, 1 for new
    and gone, 0 within noise."""
    ch = paths.change(metric)
    base, cand = ch.base[rows], ch.cand[rows]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.abs(np.log2(cand / base))
    out: F64 = np.minimum(np.nan_to_num(ratio, nan=0.0, posinf=1.0), 1.0)
    state = paths.state[rows]
    out[state == STATES.index("noise")] = 0.0
    out[(state == STATES.index("new")) | (state == STATES.index("gone"))] = 1.0
    return out


def _only(paths: PathDiff, rows: I64) -> I8:
    """`BASE_ONLY`, `CAND_ONLY` or `BOTH` per row."""
    out = np.full(len(rows), BOTH, dtype=np.int8)
    out[~paths.on_cand[rows]] = BASE_ONLY
    out[~paths.on_base[rows]] = CAND_ONLY
    return out


__all__ = ["BASE_ONLY", "BOTH", "CAND_ONLY", "SIDES", "DiffFlame", "diff_flame", "intensity"]
