"""Stepping through a method's calls on the timeline (issue 22, "missing against Android
Studio / Perfetto"): Enter / Shift+Enter walk the selected method's calls in time order, F
zooms to the call, R makes it the range, Alt+drag takes a range on the crossed threads only."""

from __future__ import annotations

import re
from typing import Any

import pytest

from support.browserkit import Viewer, fetch_json, shot

pytestmark = pytest.mark.browser
VIEWPORT = {"width": 1600, "height": 1000}  # the `page` fixture's window (tests/conftest.py)


@pytest.fixture
def page_url(eastern: Viewer) -> str:
    """The page the `page` fixture (tests/conftest.py) opens: the live viewer."""
    return eastern.url


def _corner(page: Any, text: str) -> str:
    page.wait_for_function(
        f"document.querySelector('#timeline .tl-corner').textContent.includes({text!r})"
    )
    return page.locator("#timeline .tl-corner").text_content() or ""


def test_enter_steps_f_zooms_r_ranges(page: Any, eastern: Viewer) -> None:
    prof = fetch_json(eastern, "/api/profile?clock=cpu")["methods"]
    # a method called a few times, each call long enough to see
    k = next(i for i, c in enumerate(prof["calls"]) if 3 <= c <= 50)
    method = prof["method"][k]
    page.evaluate(f"window.traceview.select({method})")
    canvas = page.locator("#timeline .tl-canvas")
    canvas.focus()
    page.keyboard.press("Enter")
    first = _corner(page, "call 1 of")
    found = re.search(r"call 1 of (\d+)", first)
    assert found is not None
    n = int(found.group(1))
    assert n >= 3
    page.keyboard.press("Enter")
    _corner(page, f"call 2 of {n}")
    page.keyboard.press("Shift+Enter")
    _corner(page, f"call 1 of {n}")
    call = page.evaluate("window.traceview.views.timeline.steps.call")
    assert call["method"] == method
    page.keyboard.press("f")
    view = page.evaluate("window.traceview.views.timeline.view")
    width = call["end_us"] - call["start_us"]
    assert view[1] - view[0] == pytest.approx(max(width * 1.1, 0.5), rel=0.02)
    page.keyboard.press("r")
    page.wait_for_selector("#range:not([hidden])")
    assert page.evaluate("window.traceview.state.range") == [call["start_us"], call["end_us"]]
    shot(page, "steps-call")


def test_alt_drag_ranges_one_thread(page: Any) -> None:
    box = page.locator("#timeline .tl-canvas").bounding_box()
    page.keyboard.down("Alt")
    page.mouse.move(box["x"] + 200, box["y"] + 20)
    page.mouse.down()
    page.mouse.move(box["x"] + 500, box["y"] + 40, steps=4)
    page.mouse.up()
    page.keyboard.up("Alt")
    page.wait_for_selector("#threads-chip:not([hidden])")
    assert "Only main" in (page.locator("#threads-chip").text_content() or "")
    assert page.locator("#range").is_visible()
