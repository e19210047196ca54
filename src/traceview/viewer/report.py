"""The `report` format: the viewer as one self-contained HTML file (file://, offline).

It holds the API requests the UI makes first, answered ahead of time (`precompute`), packaged
with the static UI by `viewer/page.py`. Registered in `exporters.REGISTRY` by its module
path (the exporters never import the viewer). Each answer goes in with its request (path and
parameters): the page indexes them by the one key rule, `keyOf` in `static/lib/api.js`.

Precomputed: /api/trace (with `live: false`), /api/methods, /api/frames?budget_ms=16, profile,
the flame graph and the Top Down / Bottom Up trees (/api/tree, their first answers) on each
clock, relations of the methods with the most inclusive time,
level-0 highlights of those methods, and timeline tiles from level 0 down while a byte budget
lasts, none under a complete tile (with /api/call for their rects). docs/web-api.md
"Report packaging" says how they are packed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Any, TypeAlias

import numpy as np

from traceview.analysis.query import Rename
from traceview.analysis.session import Session
from traceview.analysis.view import View
from traceview.exporters.jsonshape import encode
from traceview.viewer import answers
from traceview.viewer import page as htmlpage
from traceview.viewer.page import static_dir

NAME = "report"
SUFFIXES = (".html", ".htm")
BINARY = False
SUBJECT = "view"
BUDGET = 20 << 20  # bytes of precomputed timeline tiles
CALL_BUDGET = 3 << 19  # bytes of /api/call answers (hover details), at most budget // 4
RELATION_METHODS = 200  # /api/relations for this many methods (most inclusive time first)
HIGHLIGHT_METHODS = 30  # /api/highlight at level 0 for this many methods

Params: TypeAlias = dict[str, int | str]
Entry: TypeAlias = tuple[str, Params, Any]  # (path, parameters as the UI sends them, answer)

# a tree's first answer, as the UI asks for it (static/panels/tree.js FIRST): the heaviest nodes
FIRST_TREE_NODES = 2_000


@dataclass(frozen=True)
class Options:
    """`budget_bytes`: how many bytes of timeline tiles the page may precompute."""

    budget_bytes: int = BUDGET


def precompute(session: Session, budget: int = BUDGET, rename: Rename | None = None) -> list[Entry]:
    """The answers the report holds, each with the request the UI makes for it
    (docs/web-api.md); names renamed by `rename` (deobfuscated) when given."""
    out: list[Entry] = []

    def put(path: str, params: Params, value: Any) -> None:
        out.append((path, params, value))

    trace = answers.trace_answer(session, live=False)
    put("/api/trace", {}, trace)
    put("/api/methods", {}, answers.methods_answer(session, session.query(rename=rename)))
    put("/api/frames", {"budget_ms": 16}, answers.frames_answer(session, 16.0))
    top: list[int] = []
    for clock in session.clocks:
        q = session.query(clock=clock, rename=rename)
        prof = answers.profile_answer(session, q)
        put("/api/profile", {"clock": clock}, prof)
        graph = answers.flame_answer(session, "graph", q)
        put("/api/flame", {"clock": clock, "kind": "graph"}, graph)
        for kind in ("topdown", "bottomup"):
            tree = answers.tree_answer(session, kind, q, limit=FIRST_TREE_NODES)
            put("/api/tree", {"clock": clock, "kind": kind, "limit": FIRST_TREE_NODES}, tree)
        methods: list[int] = prof["methods"]["method"]
        for m in methods[:RELATION_METHODS]:
            put(f"/api/relations/{m}", {"clock": clock}, answers.relations_answer(session, m, q))
        top = top or methods[:HIGHLIGHT_METHODS]
    for t in range(len(session.trace.threads)):
        if session.thread_records[t]:
            for m in top:
                params: Params = {"thread": t, "level": 0, "tile": 0}
                put(f"/api/highlight/{m}", params, answers.highlight_answer(session, m, t, 0, 0))
    levels = _add_tiles(session, out, budget)
    trace["report"] = {"timeline_levels": levels, "budget_bytes": budget}
    return out


def _add_tiles(session: Session, out: list[Entry], budget: int) -> int:
    """Add timeline tiles level by level (for each thread all of its open tiles at a level, or
    none: then that thread stops) and the calls of their rects, while the budget lasts; return
    the number of levels any thread reached.

    A tile is open when its parent tile was not complete. A complete tile (no merged runs and
    none cut, or buckets no wider than the clock's tick, where only zero-length calls can still
    be runs) already draws every call in its span as it would at any finer level, so its finer
    tiles are left out, it is marked `"complete": true` and the UI uses it for them (`api.js`).
    A small trace thus stops after a few levels. Where the budget ran out the UI draws coarser
    tiles with a note.
    """
    used = 0
    call_used = 0
    held_calls: set[int] = set()
    level = 0
    reached = 0
    tl = session.timeline()
    times = session.trace.events.time(session.axis_clock)
    tick = 1000 if len(times) and not np.any(times % 1000) else 1  # µs-based clocks
    pending = {t: [0] for t in range(tl.threads) if session.thread_records[t]}
    for clock in session.clocks:
        session.excl(clock)
    while level <= 40 and pending:
        deeper: dict[int, list[int]] = {}
        for t, ks in pending.items():
            tiles = _tiles_within(session, t, level, ks, budget - used)
            if tiles is None:
                continue  # this thread stops here; smaller ones may still go deeper
            used += sum(size for _, size in tiles)
            reached = level + 1
            fine = tl.bounds(level, 0)[2] <= tick
            for k, (ans, _) in zip(ks, tiles, strict=True):
                if fine or _complete(ans):
                    ans["complete"] = True
                out.append(
                    ("/api/timeline", {"thread": t, "level": level, "tile": k}, _packed(ans))
                )
                for row in ans["rects"]["call"]:
                    if row in held_calls or call_used > min(CALL_BUDGET, budget // 4):
                        continue
                    call = answers.call_answer(session, int(row))
                    call_used += len(encode(call))
                    held_calls.add(row)
                    out.append((f"/api/call/{row}", {}, call))
            finer = [
                c
                for k, (ans, _) in zip(ks, tiles, strict=True)
                if not ans.get("complete")
                for c in (2 * k, 2 * k + 1)
            ]
            if finer:
                deeper[t] = finer
        pending = deeper
        level += 1
    return reached


def _packed(tile: dict[str, Any]) -> dict[str, Any]:
    """A tile answer with its rects delta-coded (docs/web-api.md "Report packaging"): `call`
    and `start` (integer ns) as differences from the previous rect, `end` as the rect's length
    in ns, and `"packed": true`; `api.js` restores the answer exactly. Compresses 40 % better."""
    rects = tile["rects"]
    call = np.asarray(rects["call"], dtype=np.int64)
    start = np.rint(np.asarray(rects["start"], dtype=np.float64) * 1000).astype(np.int64)
    end = np.rint(np.asarray(rects["end"], dtype=np.float64) * 1000).astype(np.int64)
    packed = dict(rects)
    packed["call"] = np.diff(call, prepend=0).tolist()
    packed["start"] = np.diff(start, prepend=0).tolist()
    packed["end"] = (end - start).tolist()
    return {**tile, "rects": packed, "packed": True}


def _tiles_within(
    session: Session, thread: int, level: int, ks: list[int], room: int
) -> list[tuple[dict[str, Any], int]] | None:
    """The tile answers `ks` of one thread at `level` with their encoded sizes, or None as soon
    as they exceed `room` bytes (the rest is not computed)."""
    tiles = []
    total = 0
    for k in ks:
        ans = answers.timeline_answer(session, thread, level, k)
        size = len(encode(ans))
        total += size
        if total > room:
            return None
        tiles.append((ans, size))
    return tiles


def _complete(tile: dict[str, Any]) -> bool:
    """True when a tile answer draws every call of its span as a rect (no runs, none cut)."""
    return not tile["merged"]["depth"] and not tile["truncated"]


def export(view: View, out: IO[Any], options: Options) -> None:
    """Write the report page for the view's session (the UI makes its own selections)."""
    data = precompute(view.session, options.budget_bytes, view.query.rename)
    out.write(htmlpage.render(static_dir(), data))
