"""The smaller defects of issue 22 (items 9 and 12) in Chromium: the top bar fits 1280 px with a
range, an "only" chip and a find term; the reconstructed-axis note covers no tick; the
frame bands have a legend; the header's elapsed time is told apart from the records' span."""

from __future__ import annotations

from typing import Any

import pytest

from support.browserkit import (
    Viewer,
    open_page,
    serving,
    shot,
)
from support.corpus import corpus_path

pytestmark = pytest.mark.browser


def test_top_bar_fits_1280(browser: Any, eastern: Viewer) -> None:
    errors: list[str] = []
    page = open_page(browser, eastern.url, errors)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.wait_for_selector("#tab-profile .pt-row.method")
    page.click("#tl-main")
    box = page.locator("#timeline .tl-canvas").bounding_box()
    page.mouse.move(box["x"] + 100, box["y"] + 20)
    page.mouse.down()
    page.mouse.move(box["x"] + 400, box["y"] + 20, steps=4)
    page.mouse.up()
    page.fill("#find", "LayoutInflater")
    page.wait_for_selector("#range:not([hidden])")
    page.wait_for_selector("#threads-chip:not([hidden])")
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= 1280, wide
    right = page.evaluate(
        "Math.max(...[...document.querySelectorAll('.topbar > *')]"
        ".filter(e => e.offsetParent).map(e => e.getBoundingClientRect().right))"
    )
    assert right <= 1280, right  # nothing cut off at the right edge
    assert page.locator("#copy-link").is_visible() and page.locator("#theme").is_visible()
    # the frame bands on the timeline are named
    page.wait_for_selector("#tl-legend:not([hidden])")
    assert "over 16 ms" in (page.locator("#tl-legend").text_content() or "")
    # the header's elapsed time against the records' span
    page.click('.tabs button[data-tab="header"]')
    text = page.locator("#tab-header").text_content() or ""
    assert "the timeline spans the records" in text
    shot(page, "small-topbar-1280")
    page.close()
    assert not errors, errors


def test_reconstructed_axis_note_covers_no_tick(browser: Any) -> None:
    errors: list[str] = []
    with serving(corpus_path("aosp-perflib/basic-api10.trace")) as v:
        page = open_page(browser, v.url, errors)
        label = page.locator("#timeline .tl-axislabel")
        label.wait_for(state="visible")
        note = label.bounding_box()
        axis = page.locator("#timeline .tl-axis").bounding_box()
        assert note["y"] >= axis["y"] + axis["height"] - 0.5, (note, axis)
        shot(page, "small-axis-note")
        page.close()
    assert not errors, errors


def test_frame_budget_shows_the_culprit_whole(browser: Any, eastern: Viewer) -> None:
    """Item 8: the way down to the heaviest self time shrinks, the culprit's name does not."""
    errors: list[str] = []
    page = open_page(browser, eastern.url, errors)
    page.set_viewport_size({"width": 1600, "height": 1000})
    page.click('.tabs button[data-tab="frames"]')
    page.wait_for_selector("#tab-frames .fr-row:not(.head)")
    culprit = page.locator("#tab-frames .fr-row:not(.head) .why-culprit").first
    fits = culprit.evaluate(
        "e => e.scrollWidth <= e.clientWidth + 1 && e.getBoundingClientRect().right"
        " <= e.parentElement.getBoundingClientRect().right + 1"
    )
    assert fits and "." in (culprit.text_content() or "")
    shot(page, "small-frames-culprit")
    page.close()
    assert not errors, errors


def test_columns_and_names_resize_only_beside_busy(browser: Any, eastern: Viewer) -> None:
    """Items 8 and 12: the profile's columns and the thread names' column resize by dragging;
    "only" on hover sits beside the busy time, not over it."""
    errors: list[str] = []
    page = open_page(browser, eastern.url, errors)
    page.set_viewport_size({"width": 1600, "height": 1000})
    page.wait_for_selector("#tab-profile .pt-row.method")
    cell = page.locator('#tab-profile .pt-hcell[data-col="incl_cpu"]')
    w0 = cell.bounding_box()["width"]
    grip = cell.locator(".col-grip").bounding_box()
    page.mouse.move(grip["x"] + 3, grip["y"] + 5)
    page.mouse.down()
    page.mouse.move(grip["x"] + 63, grip["y"] + 5, steps=4)
    page.mouse.up()
    assert cell.bounding_box()["width"] == pytest.approx(w0 + 60, abs=3)
    label = page.locator("#timeline .tl-label").first
    w1 = label.bounding_box()["width"]
    g = page.locator("#timeline .tl-grip").bounding_box()
    page.mouse.move(g["x"] + 3, g["y"] + 10)
    page.mouse.down()
    page.mouse.move(g["x"] + 103, g["y"] + 10, steps=4)
    page.mouse.up()
    assert label.bounding_box()["width"] == pytest.approx(w1 + 100, abs=3)
    row = page.locator("#timeline .tl-label").nth(1)
    row.hover()
    only = row.locator(".tl-only").bounding_box()
    busy = row.locator(".tl-busy").bounding_box()
    assert only is not None and only["x"] + only["width"] <= busy["x"] + 0.5
    shot(page, "small-resized")
    page.close()
    assert not errors, errors
