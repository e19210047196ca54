"""Links that reopen what you see (issue 22, item 7): the view (clock, threads, range, tab,
selected method, timeline zoom) is kept in the URL as it changes, "Copy link" copies it, and a
page opened on it shows the same view; a report names its trace by file name only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from support.browserkit import Viewer, open_page, shot
from support.corpus import EASTERN, corpus_path
from support.report_data import make_report, report_answers

pytestmark = pytest.mark.browser


def _wait_hash(page: Any, *parts: str) -> str:
    cond = " && ".join(f"location.hash.includes({p!r})" for p in parts)
    page.wait_for_function(f"() => {cond}")
    return str(page.url)


def test_link_reopens_the_view(browser: Any, eastern: Viewer) -> None:
    errors: list[str] = []
    clipboard = ["clipboard-read", "clipboard-write"]
    page = open_page(browser, eastern.url, errors, permissions=clipboard)
    page.wait_for_selector("#tab-profile .pt-row.method")
    page.click('#clock button[data-clock="wall"]')
    page.click("#tl-main")
    page.locator("#tab-profile .pt-row.method").nth(3).click()
    method = int(page.locator("#tab-profile .pt-row.method.selected").get_attribute("data-method"))
    box = page.locator("#timeline .tl-canvas").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 20)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.7, box["y"] + 20, steps=5)
    page.mouse.up()  # a drag: a range
    page.wait_for_selector("#range:not([hidden])")
    page.click('.tabs button[data-tab="topdown"]')
    url = _wait_hash(page, "clock=wall", "threads=", "range=", "tab=topdown", f"m={method}")
    page.click("#copy-link")
    page.wait_for_function("document.querySelector('#copy-link').dataset.done === 'Link copied'")
    assert page.evaluate("navigator.clipboard.readText()") == url
    range_text = page.locator("#range").text_content()
    page.close()

    again = open_page(browser, url, errors)
    again.wait_for_selector("#tab-topdown .ct-row")
    assert again.locator('.tabs button[data-tab="topdown"]').get_attribute("class") == "on"
    assert again.locator('#clock button[data-clock="wall"]').get_attribute("class") == "on"
    assert "Only main" in (again.locator("#threads-chip").text_content() or "")
    assert again.locator("#range").text_content() == range_text
    assert again.evaluate("window.traceview.state.selected") == method
    shot(again, "link-reopened")
    again.close()
    assert not errors, errors


def test_report_names_the_file_not_its_path(browser: Any, tmp_path: Path) -> None:
    """A report is sent around: it shows the trace's file name, and its local path is nowhere
    in it (it was in the header's source line)."""
    src = corpus_path(EASTERN)
    out = make_report(src, tmp_path / "r.html", budget_mb=0.5)
    html = out.read_text(encoding="utf-8")
    data = report_answers(html)
    assert data["/api/trace"]["source"] == "test.trace"
    assert str(src.parent) not in html and str(src.parent) not in json.dumps(data)
    errors: list[str] = []
    page = open_page(browser, out.as_uri(), errors)
    assert page.locator("#source").text_content() == "test.trace"
    assert page.locator("#open-btn").is_hidden()
    page.close()
    assert not errors, errors


def test_link_keeps_the_zoom(browser: Any, eastern: Viewer) -> None:
    """The timeline's zoom and the flame chart's zoomed frame come back from a link."""
    errors: list[str] = []
    page = open_page(browser, eastern.url, errors)
    page.set_viewport_size({"width": 1600, "height": 1000})
    page.locator("#timeline .tl-canvas").focus()
    for _ in range(4):
        page.keyboard.press("w")
    page.click('.tabs button[data-tab="flame"]')
    page.wait_for_function("window.traceview.views.flame.data !== null")
    box = page.locator("#tab-flame .fl-canvas").bounding_box()
    page.mouse.dblclick(box["x"] + box["width"] / 2, box["y"] + 17 * 6 + 10)
    page.wait_for_function("window.traceview.views.flame.detail !== null")
    url = _wait_hash(page, "view=", "flame=", "tab=flame")
    view = page.evaluate("window.traceview.views.timeline.view")
    zoom = page.evaluate("window.traceview.views.flame.zoom")
    page.close()
    again = open_page(browser, url, errors)
    again.set_viewport_size({"width": 1600, "height": 1000})
    again.wait_for_function("window.traceview.views.flame.detail !== null")
    assert again.evaluate("window.traceview.views.flame.zoom") == pytest.approx(zoom, abs=1e-3)
    assert again.evaluate("window.traceview.views.timeline.view") == pytest.approx(view, abs=1e-3)
    shot(again, "link-zoom")
    again.close()
    assert not errors, errors
