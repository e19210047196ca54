"""The `flame-svg` exporter: the view's flame graph as one static SVG (roots at the bottom, the
classic flame-graph picture that AFlame and flamegraph.pl draw), no script, so it opens
anywhere an image does.

Every number comes from `view.flame("graph")` (analysis/flame.py: merged stacks, frames
narrower than 1/2000 of the total already dropped); each frame carries a `<title>` tooltip with
its full name, inclusive and self time and calls. Names are made visible (`model.visible`) and
XML-escaped.
"""

from __future__ import annotations

import zlib
from typing import IO, Any
from xml.sax.saxutils import escape

import numpy as np

from traceview.analysis.view import View
from traceview.exporters import Exporter, Options
from traceview.model import visible

WIDTH = 1200  # px of the whole graph
ROW = 17  # px per stack level
CHAR = 6.6  # px per character of the 11 px monospace label (a label is cut to what fits)
MIN_PX = 0.3  # frames thinner than this are not drawn (their time stays in the parent)
TOP = 34  # px above the graph for the title
MAX_DEPTH = 400  # deeper levels are cut (a recursion that deep is unreadable anyway)


def _colour(name: str) -> str:
    """A warm colour fixed by the method's name, so a method looks the same in every graph."""
    h = zlib.crc32(name.encode("utf-8", "backslashreplace"))
    return f"rgb({205 + h % 50},{(h >> 8) % 180 + 40},{(h >> 16) % 55})"


def _ms(ns: int) -> str:
    return f"{ns / 1e6:,.3f} ms"


def render(view: View, title: str) -> str:
    """The SVG text of `view`'s flame graph."""
    fl = view.flame("graph")
    methods = view.methods
    total = max(int(fl.total), 1)
    scale = WIDTH / total
    keep = np.flatnonzero((fl.width * scale >= MIN_PX) & (fl.depth < MAX_DEPTH))
    depth = int(fl.depth[keep].max()) + 1 if len(keep) else 1
    height = TOP + depth * ROW + 24
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH + 20}" height="{height}" '
        f'viewBox="0 0 {WIDTH + 20} {height}" font-family="monospace" font-size="11">',
        f'<rect width="{WIDTH + 20}" height="{height}" fill="#fdfbf5"/>',
        f'<text x="{(WIDTH + 20) / 2}" y="20" font-size="15" text-anchor="middle">'
        f"{escape(visible(title))}</text>",
        f'<text x="10" y="{height - 8}" fill="#555">{escape(fl.clock)} time, total '
        f"{escape(_ms(int(fl.total)))}; width = inclusive time, bottom = outermost calls</text>",
    ]
    labels: dict[int, str] = {}
    for i in keep.tolist():
        m = int(fl.method[i])
        if m not in labels:
            labels[m] = visible(methods.label(m)) if m >= 0 else "(root)"
        name = labels[m]
        x = 10 + float(fl.x[i]) * scale
        w = float(fl.width[i]) * scale
        y = TOP + (depth - 1 - int(fl.depth[i])) * ROW
        width_ns, self_ns = int(fl.width[i]), int(fl.self_time[i])
        tip = (
            f"{name}\n{_ms(width_ns)} inclusive ({100 * width_ns / total:.2f}%), "
            f"{_ms(self_ns)} self, {int(fl.calls[i])} calls"
        )
        out.append(
            f'<g><title>{escape(tip)}</title><rect x="{x:.2f}" y="{y}" width="{w:.2f}" '
            f'height="{ROW - 1}" rx="2" fill="{_colour(name)}"/>'
        )
        fits = int((w - 6) / CHAR)
        if fits >= 3:
            shown = name if len(name) <= fits else name[: fits - 2] + ".."
            out.append(f'<text x="{x + 3:.2f}" y="{y + ROW - 5}">{escape(shown)}</text>')
        out.append("</g>")
    if not len(keep):
        out.append(f'<text x="10" y="{TOP + 12}" fill="#555">no calls in this selection</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _export(view: View, out: IO[Any], options: Options) -> None:
    q, trace = view.query, view.trace
    threads = q.threads if q.threads is not None else range(len(trace.threads))
    names = ", ".join(trace.threads.label(t) for t in list(threads)[:3])
    more = f" (+{len(threads) - 3} threads)" if len(threads) > 3 else ""
    out.write(render(view, options.title or f"{names}{more}"))


SVG = Exporter(
    name="flame-svg",
    suffixes=(".flame.svg",),
    binary=False,
    description="flame graph as a static SVG (roots at the bottom)",
    export=_export,
)
