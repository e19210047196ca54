"""The SVG flame graph opened from file:// in headless Chromium: it paints without network,
hover shows a frame's details, click zooms to the frame (and back), search highlights the
matching frames and gives their share; a hostile name stays text. Screenshots go to
artifacts/screenshots/ (svg-*.png)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from support.browserkit import open_file, shot
from support.tracebuild import make_trace
from traceview.analysis import Session
from traceview.analysis.view import View
from traceview.exporters import get
from traceview.synth import generate

pytestmark = pytest.mark.browser


def export(view: View, path: Path, **options: Any) -> Path:
    with path.open("w", encoding="utf-8") as f:
        get("svg").export(view, f, get("svg").options(**options))
    return path


def open_svg(browser: Any, path: Path, errors: list[str]) -> Any:
    return open_file(browser, path, errors, viewport={"width": 1240, "height": 900})


def box(page: Any, i: int) -> dict[str, float]:
    rect = page.locator(f'#frames > g[data-i="{i}"] rect')
    return {k: float(rect.get_attribute(k)) for k in ("x", "width")}


@pytest.fixture(scope="module")
def view() -> View:
    s = Session(generate(records=6000, threads=3, seed=5))
    return View(s, s.query(clock="wall"))


def test_hover_click_zoom_and_search(browser: Any, view: View, tmp_path: Path) -> None:
    errors: list[str] = []
    page = open_svg(browser, export(view, tmp_path / "f.svg"), errors)
    try:
        shot(page, "svg-initial")
        groups = page.locator("#frames > g")
        assert groups.count() > 50
        # a frame of moderate width, not a thread root
        data = page.evaluate("document.documentElement.flamegraph && 1")
        assert data == 1
        target = page.evaluate(
            """() => { const d = JSON.parse(document.getElementById('flame-data').textContent);
            for (let i = 0; i < d.x.length; i++) if (!d.t[i] && d.d[i] >= 3 &&
                d.w[i] < d.total / 4 && d.w[i] > d.total / 40) return i; return -1; }"""
        )
        assert target >= 0
        frame = page.locator(f'#frames > g[data-i="{target}"]')
        before = box(page, target)
        frame.hover()
        details = page.locator("#details").text_content() or ""
        assert " ms wall (" in details and "calls" in details
        frame.click()
        after = box(page, target)
        assert after["width"] == pytest.approx(1200, abs=0.5) and before["width"] < 400
        assert after["x"] == pytest.approx(10, abs=0.5)
        assert page.locator("#reset").get_attribute("class") == "button"
        hidden = page.locator("#frames > g.hidden").count()
        assert hidden > 0
        shot(page, "svg-zoomed")
        page.click("#reset")
        assert box(page, target) == before
        assert page.locator("#frames > g.hidden").count() == 0
        page.once("dialog", lambda d: d.accept("Choreographer"))
        page.click("#search")
        matches = page.locator("#frames > g.match")
        assert matches.count() > 0
        assert (page.locator("#matched").text_content() or "").startswith("Matched: ")
        fill = matches.first.locator("rect").get_attribute("fill")
        assert fill == "rgb(230,0,230)"
        shot(page, "svg-search")
        page.click("#clear")
        assert page.locator("#frames > g.match").count() == 0
    finally:
        page.close()
    assert not errors, errors


def test_merged_svg_has_no_thread_frames(browser: Any, view: View, tmp_path: Path) -> None:
    errors: list[str] = []
    page = open_svg(browser, export(view, tmp_path / "m.svg", merge_threads=True), errors)
    try:
        roots = page.evaluate(
            """() => { const d = JSON.parse(document.getElementById('flame-data').textContent);
            return [d.t.reduce((a, b) => a + b, 0), d.d.filter(x => x === 0).length]; }"""
        )
        assert roots[0] == 0 and roots[1] >= 1
    finally:
        page.close()
    assert not errors, errors


def test_hostile_names_stay_text(browser: Any, tmp_path: Path) -> None:
    name = "com.x.Y.<script>alert(1)</script>]]><img src=x onerror=alert(2)>(I)V"
    trace = make_trace([(1, "enter", name, 0, 0), (1, "exit", name, 50, 60)])
    s = Session(trace)
    errors: list[str] = []
    page = open_svg(browser, export(View(s, s.query()), tmp_path / "h.svg"), errors)
    dialogs: list[str] = []

    def dismiss(d: Any) -> None:
        dialogs.append(d.message)
        d.dismiss()

    page.on("dialog", dismiss)
    try:
        page.locator('#frames > g[data-i="1"]').hover()
        assert "</script>]]><img src=x" in (page.locator("#details").text_content() or "")
        assert page.locator("img").count() == 0
        assert page.locator("script").count() == 2
    finally:
        page.close()
    assert not dialogs and not errors, (dialogs, errors)
