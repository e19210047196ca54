"""The `svg` format: a standalone interactive flame graph (one SVG file, no network).

Python lays the graph out (`analysis.flame.layout` of each thread's merged tree, threads side
by side under a root frame per thread, or one merged tree with `merge_threads`) and writes it
in the document both flame graph formats share (`flamesvg.py`: every frame a rectangle with
its label, so the file shows the graph where scripts do not run; hover details, click to zoom
and search by regular expression from `flamesvg.js`). This module supplies the colours (warm,
stable per package) and its part of the script (`flamegraph.js`: the details line). Widths are
inclusive time on the query's clock, clipped to the range; frames narrower than 1/`RESOLUTION`
of the total are left out (their time stays in their parent) and counted in the subtitle, as
are frames deeper than 1024 levels (`stacks.MAX_DEPTH`).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import IO, Any

import numpy as np

from traceview.analysis.layout.flame import layout
from traceview.analysis.timebase import monotonic_text
from traceview.analysis.view import View
from traceview.exporters.flamesvg import RESOLUTION, WIDTH, Frames, Shell, write
from traceview.exporters.stacks import MAX_DEPTH, forest, frame_names

NAME = "svg"
SUFFIXES = (".svg",)
BINARY = False
SUBJECT = "view"


@dataclass(frozen=True)
class Options:
    """`merge_threads`: one merged graph instead of one root frame per thread; `title`: the
    graph's title (default "Flame graph"); `icicle`: roots on top, callees below (as the
    viewer's Flame Chart draws them) instead of flamegraph.pl's roots at the bottom."""

    merge_threads: bool = False
    title: str | None = None
    icicle: bool = False


def _colour(name: str, is_thread: bool) -> str:
    """A warm colour stable per package (threads grey-blue), like flamegraph.pl's palette."""
    if is_thread:
        return "rgb(170,190,215)"
    head = name.split(" ", 1)[0]
    pkg = head.rsplit(".", 2)[0] if head.count(".") >= 2 else head
    h = zlib.crc32(pkg.encode("utf-8", "backslashreplace"))
    r = 205 + (h & 0x1F)
    g = 80 + ((h >> 5) & 0x7F)
    b = 30 + ((h >> 12) & 0x3F)
    return f"rgb({r},{g},{b})"


def _ms(ns: int) -> str:
    return f"{ns / 1e6:,.3f} ms"


def frames_data(view: View, merge: bool) -> dict[str, Any]:
    """The laid-out frames as columns: `x`, `w` (ns), `d` (level), `n` (index into `names`),
    `s` (self ns), `c` (calls), `t` (1 for a thread's root frame), plus `names`, `total` and
    `dropped`."""
    clock = view.query.clock
    parts = forest(view, merge)
    totals = [int(p.tree.incl[clock][p.tree.parent < 0].sum()) for p in parts]
    total = sum(totals)
    all_names = frame_names(view)
    names: list[str] = []
    index: dict[str, int] = {}

    def name_id(text: str) -> int:
        k = index.get(text)
        if k is None:
            k = index[text] = len(names)
            names.append(text)
        return k

    cols: dict[str, list[Any]] = {k: [] for k in ("x", "w", "d", "n", "s", "c", "t")}
    dropped = deep = 0
    offset = 0
    for part, part_total in zip(parts, totals, strict=True):
        if part_total <= 0:
            continue
        lift = 0
        if part.label is not None:
            lift = 1
            cols["x"].append(offset)
            cols["w"].append(part_total)
            cols["d"].append(0)
            cols["n"].append(name_id(part.label))
            cols["s"].append(0)
            cols["c"].append(0)
            cols["t"].append(1)
        fraction = min(1.0, total / RESOLUTION / part_total)
        lay = layout(part.tree, "graph", clock, fraction, methods=view.methods)
        shallow = np.flatnonzero(lay.depth + lift < MAX_DEPTH)  # a level per px row: cap it
        dropped += lay.dropped
        deep += len(lay.depth) - len(shallow)
        ids = [name_id(all_names[m]) for m in lay.method[shallow].tolist()]
        cols["x"].extend((lay.x[shallow] + offset).tolist())
        cols["w"].extend(lay.width[shallow].tolist())
        cols["d"].extend((lay.depth[shallow] + lift).tolist())
        cols["n"].extend(ids)
        cols["s"].extend(lay.self_time[shallow].tolist())
        cols["c"].extend(lay.calls[shallow].tolist())
        cols["t"].extend([0] * len(ids))
        offset += part_total
    return {
        "names": names,
        "total": total,
        "dropped": dropped,
        "deep": deep,
        "clock": clock,
        **cols,
    }


def export(view: View, out: IO[Any], options: Options) -> None:
    """The flame graph as one SVG document."""
    data = frames_data(view, options.merge_threads)
    depth = max(data["d"], default=0) + 1
    scale = WIDTH / max(int(data["total"]), 1)
    rng = view.query.time_range
    sub = f"{view.query.clock} time, {_ms(int(data['total']))} in {len(data['x'])} frames"
    shift = view.session.monotonic_shift if view.query.time == "monotonic" else None
    if rng is not None and shift is not None:
        ends = (monotonic_text(rng.lo + shift), monotonic_text(rng.hi + shift))
        sub += f", range {ends[0]} to {ends[1]} on CLOCK_MONOTONIC"
    elif rng is not None:
        sub += f", range {_ms(rng.lo - view.session.origin)} to {_ms(rng.hi - view.session.origin)}"
    if data["dropped"]:
        sub += f" ({data['dropped']} frames narrower than 0.1 px left out)"
    shell = Shell(
        title=options.title or "Flame graph",
        subtitle=sub,
        script="flamegraph.js",
        data_id="flame-data",
        background="#f8f8f0",
        deep=data["deep"],
    )
    names = [data["names"][n] for n in data["n"]]
    frames = Frames(
        x=[x * scale for x in data["x"]],
        width=[w * scale for w in data["w"]],
        level=data["d"] if options.icicle else [depth - 1 - d for d in data["d"]],
        name=names,
        title=names,
        fill=[_colour(n, bool(t)) for n, t in zip(names, data["t"], strict=True)],
        classes=[""] * len(names),
    )
    write(out, shell, depth, frames, data)


__all__ = ["Options", "export", "frames_data"]
