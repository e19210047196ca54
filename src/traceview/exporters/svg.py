"""The `svg` format: a standalone interactive flame graph (one SVG file, no network).

Python lays the graph out (`analysis.flame.layout` of each thread's merged tree, threads side
by side under a root frame per thread, or one merged tree with `merge_threads`) and writes
every frame as a rectangle with its label, so the file shows the graph even where scripts do
not run (an image viewer, a README). The inline script (`flamegraph.js`, shipped next to this
module) adds hover details, click to zoom, and search (regular expression; matches
highlighted and their share of the total shown). Widths are inclusive time on the query's
clock, clipped to the range; frames narrower than 1/`RESOLUTION` of the total are left out
(their time stays in their parent) and counted in the subtitle, as are frames deeper than
1024 levels (`stacks.MAX_DEPTH`).

Names are XML-escaped (and control characters `\\xNN`) in the markup; the per-frame data the
script reads is JSON with `<`, `>` and `&` as `\\u` escapes, so no name can end the script
element or inject markup.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from html import escape
from importlib.resources import files
from typing import IO, Any

import numpy as np

from traceview.analysis.layout.flame import layout
from traceview.analysis.timebase import monotonic_text
from traceview.analysis.view import View
from traceview.exporters.stacks import MAX_DEPTH, forest, frame_names
from traceview.model import printable

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


WIDTH = 1200  # px of the graph area
FRAME = 17  # px per level
TOP = 56  # px above the graph (title, buttons)
BOTTOM = 28  # px below (details line)
PAD = 10
RESOLUTION = 12_000  # frames narrower than 1/12000 of the total (0.1 px) are left out
CHAR_PX = 7.0  # average width of a 12 px monospace-ish character


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


def _json_for_xml(obj: object) -> str:
    text = json.dumps(obj, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


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
    total = max(int(data["total"]), 1)
    depth = max(data["d"], default=0) + 1
    height = TOP + depth * FRAME + BOTTOM
    full = WIDTH + 2 * PAD
    scale = WIDTH / total
    clock = view.query.clock
    title = options.title or "Flame graph"
    rng = view.query.time_range
    sub = f"{clock} time, {_ms(int(data['total']))} in {len(data['x'])} frames"
    shift = view.session.monotonic_shift if view.query.time == "monotonic" else None
    if rng is not None and shift is not None:
        ends = (monotonic_text(rng.lo + shift), monotonic_text(rng.hi + shift))
        sub += f", range {ends[0]} to {ends[1]} on CLOCK_MONOTONIC"
    elif rng is not None:
        sub += f", range {_ms(rng.lo - view.session.origin)} to {_ms(rng.hi - view.session.origin)}"
    if data["dropped"]:
        sub += f" ({data['dropped']} frames narrower than 0.1 px left out)"
    if data["deep"]:
        sub += f" ({data['deep']} frames deeper than {MAX_DEPTH} left out)"
    script = files("traceview.exporters").joinpath("flamegraph.js").read_text(encoding="utf-8")
    w = out.write
    w('<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n')
    w(
        f'<svg version="1.1" xmlns="http://www.w3.org/2000/svg" width="{full}" '
        f'height="{height}" viewBox="0 0 {full} {height}" data-width="{WIDTH}" '
        f'data-frame="{FRAME}" data-top="{TOP}" data-pad="{PAD}" data-char="{CHAR_PX}">\n'
    )
    w(
        "<style>text{font-family:Verdana,sans-serif;font-size:12px;fill:#000}"
        "#frames text{pointer-events:none}#frames g{cursor:pointer}"
        "#frames g:hover rect{stroke:#000;stroke-width:0.5}"
        ".hidden{display:none}.faded rect{opacity:0.55}"
        ".button{cursor:pointer;fill:#204080}.button:hover{text-decoration:underline}"
        "#title{font-size:17px}#subtitle{fill:#555}</style>\n"
    )
    w(f'<rect x="0" y="0" width="{full}" height="{height}" fill="#f8f8f0"/>\n')
    w(f'<text id="title" x="{full / 2}" y="22" text-anchor="middle">{_xml(title)}</text>\n')
    w(f'<text id="subtitle" x="{full / 2}" y="40" text-anchor="middle">{_xml(sub)}</text>\n')
    w(f'<text id="reset" class="button hidden" x="{PAD}" y="22">Reset zoom</text>\n')
    w(f'<text id="search" class="button" x="{full - PAD}" y="22" text-anchor="end">Search</text>\n')
    w(
        f'<text id="clear" class="button hidden" x="{full - PAD - 60}" y="22" '
        'text-anchor="end">Clear</text>\n'
    )
    w(f'<text id="matched" x="{full - PAD}" y="{height - 9}" text-anchor="end"></text>\n')
    w(f'<text id="details" x="{PAD}" y="{height - 9}"> </text>\n')
    w('<g id="frames">\n')
    names = data["names"]
    chunk: list[str] = []
    for k in range(len(data["x"])):
        x = PAD + data["x"][k] * scale
        width = data["w"][k] * scale
        level = data["d"][k] if options.icicle else depth - 1 - data["d"][k]
        y = TOP + level * FRAME
        name = names[data["n"][k]]
        label = _fit(name, width)
        fill = _colour(name, bool(data["t"][k]))
        chunk.append(
            f'<g data-i="{k}"><title>{_xml(name)}</title>'
            f'<rect x="{x:.2f}" y="{y}" width="{width:.2f}" height="{FRAME - 1}" '
            f'fill="{fill}" rx="2"/><text x="{x + 3:.2f}" y="{y + FRAME - 5}">'
            f"{_xml(label)}</text></g>\n"
        )
        if len(chunk) >= 4096:
            w("".join(chunk))
            chunk.clear()
    w("".join(chunk))
    w("</g>\n")
    w(f'<script type="application/json" id="flame-data">{_json_for_xml(data)}</script>\n')
    w(f"<script><![CDATA[\n{script.replace(']]>', ']]]]><![CDATA[>')}\n]]></script>\n")
    w("</svg>\n")


def _xml(text: str) -> str:
    """Text safe in XML character data and attributes (control characters as \\xNN)."""
    return escape(printable(text), quote=True)


def _fit(name: str, width: float) -> str:
    """The label that fits `width` px (cut with `..`), or "" when not even 3 characters do."""
    chars = int((width - 6) / CHAR_PX)
    if chars < 3:
        return ""
    return name if len(name) <= chars else name[: chars - 2] + ".."


__all__ = ["Options", "export", "frames_data"]
