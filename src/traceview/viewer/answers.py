"""The viewer's data API (docs/web-api.md): each answer a JSON-ready dict from a `Session` and
a `Query`.

Shared by the live server (`viewer/app.py`, which adds HTTP and caching) and the offline report
(`viewer/report.py`, which precomputes a set of them with the requests they answer). Every list is
capped so an answer stays bounded; capped lists say `"truncated": true`. Names from the trace
go out through `model.text.visible` (jsonshape.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.kernels.tiling import BUCKETS, MAX_LEVEL
from traceview.analysis.layout.budget import culprits, paths
from traceview.analysis.profile import Profile, Relatives
from traceview.analysis.query import Query
from traceview.analysis.session import Session
from traceview.exporters.jsonshape import (
    PALETTE,
    Json,
    diagnostics_json,
    flag_names,
    header_json,
    ints,
    methods_json,
    tile_json,
    us,
    us1,
)
from traceview.model import visible

# the tree and flame answers live in viewer/trees.py
from traceview.viewer.trees import flame_answer as flame_answer
from traceview.viewer.trees import tree_answer as tree_answer

MAX_PROFILE_ROWS = 20_000
MAX_RELATION_ROWS = 500
MAX_FRAMES = 5_000


def trace_answer(s: Session, live: bool = True, can_open: bool = True) -> Json:
    """/api/trace: header, clocks, time span, threads, diagnostics, palette, and the timeline's
    tiling (`tiles`: buckets per tile and the deepest level, which the UI's tile maths use);
    `can_open`: whether this server takes another trace (POST /api/open); a report's `source`
    is the file's name only (a report is sent around: no local path in it); `time.monotonic_ns`
    puts the axis on CLOCK_MONOTONIC (analysis/timebase.py)."""
    tr, calls = s.trace, s.calls
    main = s.main_thread()
    shift = s.monotonic_shift
    threads = []
    for t in range(len(tr.threads)):
        lo, hi = (int(x) for x in calls.thread_ranges[t])
        first, last = s.thread_axis_span(t)
        has = bool(s.thread_records[t])
        name = tr.threads.name[t]
        threads.append(
            {
                "row": t,
                "id": int(tr.threads.id[t]),
                "name": visible(name) if name is not None else None,
                "label": visible(tr.threads.label(t)),
                "records": int(s.thread_records[t]),
                "calls": hi - lo,
                "cpu_us": us1(calls.thread_total(t, "cpu")) if "cpu" in s.clocks else None,
                "wall_us": us1(calls.thread_total(t, "wall")) if "wall" in s.clocks else None,
                "start_us": us1(first, s.origin) if has else None,
                "end_us": us1(last, s.origin) if has else None,
                "main": t == main,
            }
        )
    source = visible(tr.source) if tr.source is not None else None
    if source is not None and not live:
        source = source.replace("\\", "/").rsplit("/", 1)[-1]
    return {
        "source": source,
        "header": header_json(tr),
        "clocks": list(s.clocks),
        "default_clock": s.default_clock,
        "timeline_clock": s.timeline_clock,
        # "reconstructed": no wall clock, threads laid out on an axis rebuilt from record order
        "timeline_axis": "reconstructed" if s.reconstructed else s.timeline_clock,
        "estimates": bool(tr.header.sampled),
        "time": {
            "origin_us": us1(s.origin),
            "start_us": 0.0,
            "end_us": us1(s.end, s.origin),
            # CLOCK_MONOTONIC ns at start_us (null: the trace records no anchor)
            "monotonic_ns": None if shift is None else s.origin + shift,
        },
        "threads": threads,
        "diagnostics": diagnostics_json(s.diagnostics()),
        "palette": PALETTE,
        "tiles": {"buckets": BUCKETS, "max_level": MAX_LEVEL},
        "live": live,
        "can_open": live and can_open,
    }


def methods_answer(s: Session, q: Query | None = None) -> Json:
    """/api/methods: names and colour index per method row (traceview's rule: round-robin
    over the palette in order of inclusive time, -1 for methods never called)."""
    order = s.profile(s.query()).used()
    colors = np.full(len(s.trace.methods), -1, dtype=np.int64)
    colors[order] = np.arange(len(order)) % len(PALETTE)
    return methods_json(s.methods(q), colors)


def timeline_answer(s: Session, thread: int, level: int, tile: int) -> Json:
    """/api/timeline: one LOD tile of one thread."""
    return tile_json(s.timeline().tile(thread, level, tile), s.origin)


def highlight_answer(s: Session, method: int, thread: int, level: int, tile: int) -> Json:
    """/api/highlight: a method's extents in one tile."""
    if not 0 <= method < len(s.trace.methods):
        raise ValueError(f"no method row {method}")
    t0 = s.timeline().bounds(level, tile)[0]
    start, end = s.timeline().highlight(method, thread, level, tile)
    return {"method": method, "thread": thread, "level": level, "tile": tile,
            "start": us(start, s.origin - t0), "end": us(end, s.origin - t0)}  # fmt: skip


def call_answer(s: Session, row: int) -> Json:
    """/api/call/{row}: one call's times on both clocks, flags and caller."""
    calls = s.calls
    if not 0 <= row < len(calls):
        raise ValueError(f"no call row {row}")
    idx = np.array([row])
    end = int(calls.subtree_end[row])
    times: dict[str, Any] = {}
    for clock in ("cpu", "wall"):
        if clock not in s.clocks:
            times[f"incl_{clock}_us"] = times[f"excl_{clock}_us"] = None
            continue
        incl = int((calls.end(clock, idx) - calls.start(clock, idx))[0])
        # the column when a report built it, else a compiled pass over this call's subtree
        excl = s.excl(clock, build=False)
        own = int(excl[row] if excl is not None else calls.excl(clock, slice(row, end))[0])
        times[f"incl_{clock}_us"] = us1(incl)
        times[f"excl_{clock}_us"] = us1(own)
    off = None
    if len(s.clocks) == 2:  # never negative: CPU can exceed wall by a clock tick
        off = max(0.0, round(times["incl_wall_us"] - times["incl_cpu_us"], 3))
    start, stop = s.placed(idx)  # where the call sits on the timeline's axis
    return {
        "row": row,
        "thread": int(np.searchsorted(calls.thread_ranges[:, 1], row, side="right")),
        "method": int(calls.method[row]),
        "depth": int(calls.depth[row]),
        "start_us": us1(int(start[0]), s.origin),
        "end_us": us1(int(stop[0]), s.origin),
        **times,
        "off_cpu_us": off,
        "flags": flag_names(int(calls.flags[row])),
        "parent": int(calls.parent[row]),
    }


def profile_answer(s: Session, q: Query) -> Json:
    """/api/profile: traceview's table, rows with non-zero inclusive time on `q.clock`."""
    p = s.profile(q)
    incl = p.incl[q.clock]
    rows = np.flatnonzero(incl > 0)
    rows = rows[np.lexsort((rows, -incl[rows]))]
    truncated = len(rows) > MAX_PROFILE_ROWS
    rows = rows[:MAX_PROFILE_ROWS]
    n_calls = p.calls[rows] + p.recursive_calls[rows]
    cols: Json = {"method": ints(rows)}
    for clock in ("cpu", "wall"):
        have = clock in p.clocks
        cols[f"incl_{clock}_us"] = us(p.incl[clock][rows]) if have else None
        cols[f"excl_{clock}_us"] = us(p.excl[clock][rows]) if have else None
    off = p.off_cpu()  # never negative (analysis/profile.py)
    cols["off_cpu_us"] = us(off[rows]) if off is not None else None
    # off the CPU in the method's own code (not its callees'): where a thread waited
    both = len(p.clocks) == 2
    own = np.maximum(p.excl["wall"] - p.excl["cpu"], 0) if both else None
    cols["excl_off_cpu_us"] = us(own[rows]) if own is not None else None
    cols["calls"] = ints(p.calls[rows])
    cols["recursive_calls"] = ints(p.recursive_calls[rows])
    for clock in ("cpu", "wall"):
        per = p.incl[clock][rows] / np.maximum(n_calls, 1) if clock in p.clocks else None
        cols[f"{clock}_per_call_us"] = us(per) if per is not None else None
    return {
        "clock": q.clock,
        "total": {f"{c}_us": us1(p.total(c)) if c in p.clocks else None for c in ("cpu", "wall")},
        "toplevel": {
            f"{c}_us": us1(p.toplevel[c]) if c in p.clocks else None for c in ("cpu", "wall")
        },
        "estimates": bool(p.estimates),
        "methods": cols,
        "truncated": truncated,
    }


def _edge_rows(
    p: Profile, edges: Relatives, totals: npt.NDArray[np.int64], clock: str
) -> tuple[list[Json], bool]:
    """Relation rows `{method, calls, total_calls, incl_cpu_us, incl_wall_us}`, by `clock`."""
    ends = edges.method
    key = edges.incl.get(clock, edges.calls)
    order = np.lexsort((ends, -key))[:MAX_RELATION_ROWS]
    out = []
    for i in order.tolist():
        out.append(
            {
                "method": int(ends[i]),
                "calls": int(edges.calls[i]),
                "total_calls": int(totals[i]),
                "incl_cpu_us": us1(int(edges.incl["cpu"][i])) if "cpu" in p.clocks else None,
                "incl_wall_us": us1(int(edges.incl["wall"][i])) if "wall" in p.clocks else None,
            }
        )
    return out, len(ends) > MAX_RELATION_ROWS


def relations_answer(s: Session, method: int, q: Query) -> Json:
    """/api/relations/{method}: parents, children, self row and the recursive groups."""
    if not 0 <= method < len(s.trace.methods):
        raise ValueError(f"no method row {method}")
    p = s.profile(q)
    all_calls = p.calls + p.recursive_calls
    mine = int(all_calls[method])
    out: Json = {"method": method, "clock": q.clock}
    truncated = False
    for name, recursive in (("", False), ("_recursive", True)):
        par = p.parents(method, recursive)
        rows, cut = _edge_rows(p, par, np.full(len(par), mine, dtype=np.int64), q.clock)
        out[f"parents{name}"] = rows
        kids = p.children(method, recursive)
        rows2, cut2 = _edge_rows(p, kids, all_calls[kids.method], q.clock)
        out[f"children{name}"] = rows2
        truncated = truncated or cut or cut2
    out["self"] = {
        "method": method,
        "calls": mine,
        "total_calls": mine,
        "incl_cpu_us": us1(int(p.top_excl["cpu"][method])) if "cpu" in p.clocks else None,
        "incl_wall_us": us1(int(p.top_excl["wall"][method])) if "wall" in p.clocks else None,
    }
    out["incl_cpu_us"] = us1(int(p.incl["cpu"][method])) if "cpu" in p.clocks else None
    out["incl_wall_us"] = us1(int(p.incl["wall"][method])) if "wall" in p.clocks else None
    out["truncated"] = truncated
    return out


def frames_answer(s: Session, budget_ms: float) -> Json:
    """/api/frames: main-thread frame calls over `budget_ms`."""
    if not budget_ms >= 0 or budget_ms > 1e9:
        raise ValueError("bad budget_ms")
    thread = s.main_thread()
    clock = s.timeline_clock  # frames are measured and placed on the timeline's clock
    calls = s.calls
    if not len(s.trace.threads):
        empty: Json = {"call": [], "method": [], "start_us": [], "end_us": []}
        empty |= {"wall_us": [], "cpu_us": [], "path": [], "self_us": []}
        return {"budget_us": round(budget_ms * 1000, 3), "thread": None, "kind": "toplevel",
                "clock": clock, "frames": 0, "calls": empty, "truncated": False}  # fmt: skip
    fc = s.frames(round(budget_ms * 1e6), thread)
    rows = fc.rows[:MAX_FRAMES]
    leaf, own = culprits(calls, rows, fc.clock)
    path = paths(calls, rows, leaf)
    start, stop = s.placed(rows)  # placed on the timeline's axis, measured on `clock`
    cols: Json = {
        "call": ints(rows),
        "method": ints(calls.method[rows]),
        "start_us": us(start, s.origin),
        "end_us": us(stop, s.origin),
    }
    for c in ("wall", "cpu"):
        have = c in s.clocks
        cols[f"{c}_us"] = us(calls.end(c, rows) - calls.start(c, rows)) if have else None
    # why each frame was slow: the calls down to the one with the most self time (on `clock`)
    cols["path"] = [ints(calls.method[np.array(p, dtype=np.int64)]) for p in path]
    cols["self_us"] = us(own)
    return {
        "budget_us": round(budget_ms * 1000, 3),
        "thread": thread,
        "kind": fc.kind,
        "clock": fc.clock,
        "frames": fc.frames,
        "calls": cols,
        "truncated": len(fc.rows) > MAX_FRAMES,
    }


def anr_answer(s: Session, q: Query) -> Json:
    """/api/anr: the calls open at the dump and the slow calls (exporters/anr.py's JSON)."""
    from traceview.analysis.view import View
    from traceview.exporters.anr_json import summary_json

    return summary_json(View(s, q))
