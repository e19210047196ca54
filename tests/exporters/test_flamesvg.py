"""The `flame-svg` exporter: a well-formed static SVG whose frames are the view's flame graph
(widths proportional to inclusive time, roots at the bottom), names escaped, no script."""

from __future__ import annotations

import io
import re
import xml.dom.minidom

from support.viewer_trace import EVIL_CLASS, viewer_trace
from traceview import exporters
from traceview.analysis.session import Session
from traceview.analysis.view import View
from traceview.exporters.flamesvg import MIN_PX, WIDTH
from traceview.synth import generate


def render(view: View, title: str | None = None) -> str:
    out = io.StringIO()
    exporters.get("flame-svg").export(view, out, exporters.Options(title=title))
    return out.getvalue()


def rects(svg: str) -> list[tuple[float, float, float]]:
    """(x, y, width) of every frame rect."""
    found = re.findall(r'<rect x="([\d.]+)" y="(\d+)" width="([\d.]+)"', svg)
    return [(float(x), float(y), float(w)) for x, y, w in found]


def test_frames_are_the_flame_layout() -> None:
    s = Session(generate(records=20_000, threads=3, seed=2))
    main = s.main_thread()
    view = View(s, s.query(threads=[main]))
    svg = render(view)
    xml.dom.minidom.parseString(svg)
    fl = view.flame("graph")
    drawn = fl.width * (WIDTH / fl.total) >= MIN_PX
    frames = rects(svg)
    assert len(frames) == int(drawn.sum())
    roots = [f for f in frames if f[1] == max(y for _, y, _ in frames)]  # the bottom row
    assert abs(sum(w for _, _, w in roots) - WIDTH * fl.width[fl.depth == 0].sum() / fl.total) < 1
    assert "<script" not in svg and s.trace.threads.label(main) in svg
    assert exporters.for_path("x.flame.svg") is exporters.get("flame-svg")


def test_names_are_escaped() -> None:
    s = Session(viewer_trace())
    svg = render(View(s, s.query()), title="<t>&")
    xml.dom.minidom.parseString(svg)
    assert "&lt;t&gt;&amp;" in svg and "<t>" not in svg
    assert EVIL_CLASS not in svg and "</script>" not in svg


def test_an_empty_selection_says_so() -> None:
    s = Session(generate(records=2_000, threads=2, seed=1))
    end = s.end - s.origin
    view = View(s, s.query(time_range=s.time_range(end + 1000, end + 2000)))
    svg = render(view)
    xml.dom.minidom.parseString(svg)
    assert "no calls in this selection" in svg
