"""The Flame Chart in Chromium on a real trace (issue 22, item 2): a double-click zooms and
asks for the zoomed window again, so frames too narrow for the whole graph show once they are
a pixel wide; the bar names the clock and what 100 % is; no text gets selected."""

from __future__ import annotations

from typing import Any

import pytest

from support.browserkit import Viewer, shot

pytestmark = pytest.mark.browser
VIEWPORT = {"width": 1600, "height": 1000}  # the `page` fixture's window (tests/conftest.py)
FRAME_H = 17  # panels/flamepaint.js
# the frame nearest 1/40 of the graph, where it is, and how many frames lie inside it
PICK = """() => {
  const f = window.traceview.views.flame, N = f.data.nodes, T = f.data.total;
  const off = (i) => Math.abs(N.width[i] - T / 40);
  let k = 0;
  for (let i = 0; i < N.x.length; i++) if (off(i) < off(k)) k = i;
  let n = 0;
  for (let i = 0; i < N.x.length; i++)
    if (N.x[i] >= N.x[k] && N.x[i] + N.width[i] <= N.x[k] + N.width[k]) n++;
  return { x: (N.x[k] + N.width[k] / 2) / T, depth: N.depth[k], before: n };
}"""
# how many frames of the zoomed window's answer lie inside it
INSIDE_ZOOM = """() => {
  const f = window.traceview.views.flame, M = f.detail.nodes, [a, b] = f.zoom;
  let n = 0;
  for (let i = 0; i < M.x.length; i++) if (M.x[i] >= a && M.x[i] + M.width[i] <= b) n++;
  return n;
}"""


@pytest.fixture
def page_url(eastern: Viewer) -> str:
    """The page the `page` fixture (tests/conftest.py) opens: the live viewer."""
    return eastern.url


@pytest.fixture
def page(page: Any) -> Any:
    """The shared `page` (tests/conftest.py) on the Flame Chart tab, its graph received."""
    page.click('.tabs button[data-tab="flame"]')
    page.wait_for_function("window.traceview.views.flame.data !== null")
    return page


def test_zoom_fetches_detail(page: Any) -> None:
    info = page.locator("#tab-flame .subbar .muted").first.text_content() or ""
    assert "Thread CPU" in info and "100 % =" in info, info
    # a frame about 1/40 of the graph: its callees under 1/2000 of the whole are not drawn yet
    target = page.evaluate(PICK)
    box = page.locator("#tab-flame .fl-canvas").bounding_box()
    x = box["x"] + target["x"] * box["width"]
    page.mouse.dblclick(x, box["y"] + target["depth"] * FRAME_H + 10)
    page.wait_for_function("window.traceview.views.flame.detail !== null")
    after = page.evaluate(INSIDE_ZOOM)
    assert after > target["before"], (after, target)
    assert "zoomed" in (page.locator("#tab-flame .subbar .muted").first.text_content() or "")
    assert page.evaluate("String(window.getSelection())") == ""
    shot(page, "flame-zoom-detail")
