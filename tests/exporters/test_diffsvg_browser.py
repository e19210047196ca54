"""The differential flame graph SVG (`traceview diff ... -o diff.svg`) opened from file:// in
headless Chromium: it paints without network, a slower path is red and its hover shows both
sides, Δ, Δ % and the significance, the side switch draws the baseline's widths (the gone
path appears, the new one goes), click zooms, search highlights; hostile names stay text.
Screenshots go to artifacts/screenshots/ (diffsvg-*.png)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from support.browserkit import open_file, shot
from support.plant import SOMETIMES, planted_runs
from support.tracebuild import make_trace
from traceview.analysis import Session
from traceview.analysis.compare import Comparison, compare
from traceview.exporters import get

pytestmark = pytest.mark.browser


def export(c: Comparison, path: Path) -> Path:
    with path.open("w", encoding="utf-8") as f:
        get("diff-svg").export(c, f)
    return path


def open_svg(browser: Any, path: Path, errors: list[str]) -> Any:
    return open_file(browser, path, errors, viewport={"width": 1240, "height": 1000})


def find(page: Any, test: str) -> int:
    """The first frame index for which the JS expression `test` (over d, i) holds."""
    index: int = page.evaluate(
        """(test) => { const d = JSON.parse(document.getElementById('diff-data').textContent);
        const f = new Function('d', 'i', 'return ' + test);
        for (let i = 0; i < d.n.length; i++) if (f(d, i)) return i; return -1; }""",
        test,
    )
    return index


@pytest.fixture(scope="module")
def planted() -> Comparison:
    base, cand = planted_runs(runs=3, moved=True)
    return compare([Session(t) for t in base], [Session(t) for t in cand])


def test_hover_side_switch_zoom_and_search(
    browser: Any, planted: Comparison, tmp_path: Path
) -> None:
    errors: list[str] = []
    page = open_svg(browser, export(planted, tmp_path / "d.svg"), errors)
    try:
        shot(page, "diffsvg-initial")
        assert page.locator("#frames > g").count() > 100
        hot = find(page, f"d.names[d.n[i]].startsWith('{SOMETIMES} ') && d.st[i] === 2")
        assert hot >= 0
        frame = page.locator(f'#frames > g[data-i="{hot}"]')
        assert (frame.locator("rect").get_attribute("fill") or "").startswith("rgb(255,")
        frame.hover()
        details = page.locator("#details").text_content() or ""
        assert details.startswith(SOMETIMES) and "slower" in details
        assert "inclusive " in details and " → " in details and "(Δ +" in details
        assert "t = " in details and "beyond the run-to-run spread at 95 %" in details
        gone = find(page, "d.only[i] === 1")
        came = find(page, "d.only[i] === 2")
        assert gone >= 0 and came >= 0

        def hidden(i: int) -> bool:
            cls = page.locator(f'#frames > g[data-i="{i}"]').get_attribute("class") or ""
            return "hidden" in cls.split()

        assert hidden(gone) and not hidden(came)
        page.click("#side")
        assert page.locator("#side").text_content() == "Widths: baseline"
        assert not hidden(gone) and hidden(came)
        shot(page, "diffsvg-baseline")
        page.click("#side")
        assert hidden(gone) and not hidden(came)
        frame.click()
        width = float(frame.locator("rect").get_attribute("width") or 0)
        assert width == pytest.approx(1200, abs=0.5)
        page.click("#reset")
        page.once("dialog", lambda d: d.accept("isBoring"))
        page.click("#search")
        assert page.locator("#frames > g.match").count() > 0
        assert (page.locator("#matched").text_content() or "").startswith("Matched: ")
    finally:
        page.close()
    assert not errors, errors


def test_hostile_names_stay_text(browser: Any, tmp_path: Path) -> None:
    name = "com.x.Y.<script>alert(1)</script>]]><img src=x onerror=alert(2)>(I)V"
    a = make_trace([(1, "enter", name, 0, 0), (1, "exit", name, 5000, 6000)], names={1: "main"})
    b = make_trace([(1, "enter", name, 0, 0), (1, "exit", name, 9000, 9900)], names={1: "<b>m"})
    c = compare([Session(a)], [Session(b)])
    errors: list[str] = []
    dialogs: list[str] = []
    page = open_svg(browser, export(c, tmp_path / "h.svg"), errors)

    def dismiss(d: Any) -> None:
        dialogs.append(d.message)
        d.dismiss()

    page.on("dialog", dismiss)
    try:
        leaf = find(page, "d.d[i] === 1")
        page.locator(f'#frames > g[data-i="{leaf}"]').hover()
        text = page.locator("#details").text_content() or ""
        assert "</script>]]><img src=x" in text and "slower" in text
        assert page.locator("img").count() == 0 and page.locator("b").count() == 0
        assert page.locator("script").count() == 2
    finally:
        page.close()
    assert not dialogs and not errors, (dialogs, errors)
