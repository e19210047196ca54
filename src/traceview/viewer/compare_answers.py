"""The viewer's compare answers (docs/web-api.md, "Compare"): a `Comparison` (analysis/
compare.py) as JSON columns — the methods with their states and significance, the
differential flame graph laid out on one side's widths, the changed call paths.

Every number is the comparison's; times are µs. Method rows carry the row of the same method
(same class, name and signature) in each side's first trace (`base_method`, `cand_method`,
-1 where absent), so a selection shows on both timelines. Names go out through `visible`;
lists are capped (`truncated`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.compare import Comparison
from traceview.analysis.diff import Key
from traceview.analysis.session import Session
from traceview.analysis.significance import STATES, Change
from traceview.exporters.diff import counts
from traceview.exporters.diffpaths import changed_paths, path_lines
from traceview.exporters.jsonshape import Json, us, us1
from traceview.model import visible
from traceview.viewer.comparing import Comparisons, Sides

MAX_METHODS = 20_000
MAX_NODES = 30_000
MAX_PATHS = 500
RESOLUTION = 12_000  # flame nodes narrower than 1/12000 of the total are left out


def _nums(x: npt.ArrayLike) -> list[float | None]:
    """Floats with NaN and ±inf as null."""
    arr = np.asarray(x, dtype=np.float64)
    out: list[float | None] = [
        None if not np.isfinite(v) else round(float(v), 3) for v in arr.tolist()
    ]
    return out


def _change(prefix: str, ch: Change, rows: npt.NDArray[np.int64]) -> Json:
    """A `Change` on `rows` as columns: medians per side and Δ in µs, Δ % (null when not
    finite), t (null when unknown) and significance."""
    rel = ch.rel[rows]
    return {
        f"{prefix}_base": us(np.nan_to_num(ch.base[rows])),
        f"{prefix}_cand": us(np.nan_to_num(ch.cand[rows])),
        f"{prefix}_delta": us(np.nan_to_num(ch.delta[rows])),
        f"{prefix}_rel": _nums(100 * rel),
        f"{prefix}_t": _nums(ch.t[rows]) if ch.known else [None] * len(rows),
        f"{prefix}_sig": ch.significant[rows].astype(bool).tolist(),
    }


def _about(c: Comparison) -> Json:
    th = c.thresholds
    return {
        "baseline": [visible(s) for s in c.baseline],
        "candidate": [visible(s) for s in c.candidate],
        "clock": c.clock,
        "metric": th.metric,
        "thresholds": {
            "fail_above_percent": round(100 * th.fail_above, 6),
            "min_time_us": th.min_time_ns / 1000,
            "confidence_percent": round(100 * th.confidence, 6),
        },
        "spread_known": c.spread_known,
        "critical_t": round(c.critical, 6) if c.critical is not None else None,
        "notes": [visible(n) for n in c.notes],
    }


def sides_json(sides: Sides, side: str) -> Json:
    """What /api/trace adds in compare mode: the runs of each side (their sources), which side
    this trace is, and the metric the thresholds gate (the compare views' first)."""

    def names(xs: tuple[Any, ...]) -> list[str]:
        return [visible(x.trace.source or "-") for x in xs]

    return {
        "side": side,
        "baseline": names(sides.base),
        "candidate": names(sides.cand),
        "metric": sides.thresholds.metric,
    }


def compare_answer(cs: Comparisons, c: Comparison) -> Json:
    """/api/compare: every method seen on either side (by decreasing absolute change of the
    metric, up to `MAX_METHODS`) with its state, the gate's status, both sides' inclusive,
    exclusive and call medians with Δ, Δ %, t and significance, and its rows in each side's
    first trace; the counts of states, the thresholds and notes."""
    m, metric = c.methods, c.thresholds.metric
    delta = np.abs(np.nan_to_num(m.change(metric).delta))
    order = np.lexsort((np.arange(len(m)), -delta))
    rows = order[:MAX_METHODS].astype(np.int64)
    keys: list[Key] = [(m.class_name[i], m.name[i], m.signature[i]) for i in rows.tolist()]
    keys = [(k[0].replace("/", "."), k[1], k[2]) for k in keys]
    states: dict[str, int] = {}
    for s in m.state.tolist():
        states[STATES[s]] = states.get(STATES[s], 0) + 1
    return {
        **_about(c),
        "states": states,
        "statuses": counts(c),
        "methods": {
            "label": [visible(f"{m.full_name(i)} {m.signature[i]}".strip()) for i in rows],
            "state": [STATES[int(s)] for s in m.state[rows]],
            "status": [m.status[i] for i in rows.tolist()],
            "gated": m.gated[rows].astype(bool).tolist(),
            "base_method": cs.rows_of("base", keys).tolist(),
            "cand_method": cs.rows_of("cand", keys).tolist(),
            **_change("incl", m.incl, rows),
            **_change("excl", m.excl, rows),
            "calls_base": _nums(m.calls.base[rows]),
            "calls_cand": _nums(m.calls.cand[rows]),
        },
        "truncated": len(m) > MAX_METHODS,
    }


def flame_answer(cs: Comparisons, c: Comparison, side: str) -> Json:
    """/api/compare/flame: the differential flame graph with widths on `side` ("candidate"
    or "baseline"): nodes in pre-order with `depth`, `x`, `width` (µs on that side's scale),
    `name` (an index into `names`), `state`, `intensity`, `only` (1 baseline only, 2
    candidate only), both sides' inclusive and exclusive medians with Δ, Δ %, t and
    significance on the metric, the calls, and each node's method rows in both traces (-1 for
    a thread's root)."""
    f = c.diff_flame(side, 1 / RESOLUTION)
    p = c.paths
    assert p is not None
    rows = f.row[:MAX_NODES]
    n = len(rows)
    frames = p.frame[rows]
    used, name = np.unique(frames, return_inverse=True)
    is_thread = c.frames.threads()[used]
    keys: list[Key] = [
        (k[0].replace("/", "."), k[1], k[2]) if len(k) == 3 else ("", "", "")
        for k in (c.frames.keys[int(u)] for u in used.tolist())
    ]
    base_m = np.where(is_thread, -1, cs.rows_of("base", keys))[name]
    cand_m = np.where(is_thread, -1, cs.rows_of("cand", keys))[name]
    metric = c.thresholds.metric
    ch = p.change(metric)
    return {
        **_about(c),
        "side": side,
        "total": round(f.total / 1000, 3),
        "names": [visible(c.frames.label(int(u))) for u in used.tolist()],
        "nodes": {
            "name": name.astype(np.int64).tolist(),
            "depth": f.depth[:n].tolist(),
            "x": us(f.x[:n]),
            "width": us(f.width[:n]),
            "state": [STATES[int(s)] for s in f.state[:n]],
            "intensity": np.round(f.intensity[:n], 3).tolist(),
            "only": f.only[:n].astype(np.int64).tolist(),
            "base_method": base_m.tolist(),
            "cand_method": cand_m.tolist(),
            **_change("incl", p.incl, rows),
            **_change("excl", p.excl, rows),
            "t": _nums(ch.t[rows]) if ch.known else [None] * n,
            "calls_base": _nums(p.calls.base[rows]),
            "calls_cand": _nums(p.calls.cand[rows]),
        },
        "dropped": int(f.dropped),
        "truncated": len(f) > MAX_NODES,
    }


def first_answer(s: Session, method: int) -> Json:
    """/api/first/{method}: the method's first call on the timeline's axis (µs from the
    trace's start, its thread row and call row), null when it is never called: where the
    compare view aligns the two timelines."""
    if not 0 <= method < len(s.trace.methods):
        raise ValueError(f"no method row {method}")
    calls = s.calls
    rows = np.flatnonzero(calls.method == method)
    if not len(rows):
        return {"method": method, "start_us": None, "thread": None, "row": None}
    start, _ = s.placed(rows)
    i = int(np.argmin(start))
    row = int(rows[i])
    thread = int(np.searchsorted(calls.thread_ranges[:, 1], row, side="right"))
    first = us1(int(start[i]), s.origin)
    return {"method": method, "start_us": first, "thread": thread, "row": row}


def paths_answer(c: Comparison) -> Json:
    """/api/compare/paths: the changed call paths (as `traceview diff` lists them: slower or
    faster gated paths and the topmost new or gone ones), largest change first, each as a
    short line of frames with its state and both sides' medians of the metric and inclusive
    time."""
    p = c.paths
    if p is None:
        raise ValueError("these runs were summarised without their call paths")
    picked, more = changed_paths(c, p, MAX_PATHS)
    rows = np.asarray(picked, dtype=np.int64)
    ch = p.change(c.thresholds.metric)
    return {
        **_about(c),
        "paths": {
            "line": [visible(s) for s in path_lines(c, p, picked)],
            "state": [STATES[int(s)] for s in p.state[rows]],
            **_change("metric", ch, rows),
            "incl_base": us(p.incl.base[rows]),
            "incl_cand": us(p.incl.cand[rows]),
        },
        "more": more,
    }


__all__ = ["compare_answer", "first_answer", "flame_answer", "paths_answer", "sides_json"]
