"""The Profile table in Chromium on a real trace (issue 22, items 3, 4, 6, 11): a parent or
child the find text hides still shows when jumped to, ↑/↓ walk the parents/children rows too,
an exclusive off-CPU column finds the wait, and the percentages say their base."""

from __future__ import annotations

from typing import Any

import pytest

from support.browserkit import Viewer, shot

pytestmark = pytest.mark.browser
VIEWPORT = {"width": 1600, "height": 1000}  # the `page` fixture's window (tests/conftest.py)
ROWS = "#tab-profile .pt-row"


@pytest.fixture
def page_url(eastern: Viewer) -> str:
    """The page the `page` fixture (tests/conftest.py) opens: the live viewer."""
    return eastern.url


def _selected(page: Any) -> str:
    return page.locator(f"{ROWS}.method.selected .lbl").text_content() or ""


def test_exclusive_off_cpu_names_the_wait(page: Any) -> None:
    with page.expect_response(lambda r: "/api/profile" in r.url and "threads=" in r.url):
        page.click("#tl-main")
    head = page.locator('#tab-profile .pt-hcell[data-col="excl_off_cpu"]')
    assert "own code" in (head.get_attribute("title") or "")
    head.click()
    first = page.locator(f"{ROWS}.method").first.locator(".lbl").text_content() or ""
    assert "BinderProxy.transactNative" in first, first
    base = page.locator("#tab-profile .pt-base").text_content() or ""
    assert "100 %" in base and "Thread CPU" in base and "Wall" in base, base
    assert "main only" in base, base
    shot(page, "profile-excl-off-cpu")


def test_find_does_not_trap_the_walk(page: Any) -> None:
    first = page.locator(f"{ROWS}.method").first
    name = first.locator(".lbl").text_content() or ""
    needle = name.split(" ")[0].split(".")[-1]  # the method name of the heaviest row
    page.fill("#find", needle)
    page.wait_for_function(
        f"[...document.querySelectorAll('{ROWS}.method .lbl')].every(e => "
        f"e.textContent.toLowerCase().includes({needle.lower()!r}))"
    )
    row = page.locator(f"{ROWS}.method").first
    row.locator(".twisty").click()
    page.wait_for_selector(f"{ROWS}.rel.g-children")
    kids = page.locator(f"{ROWS}.rel.g-children:not(.nojump)")
    hidden = None
    for k in range(kids.count()):
        text = kids.nth(k).locator(".lbl").text_content() or ""
        if needle.lower() not in text.lower():
            hidden = k
            break
    assert hidden is not None, "no child outside the find text"
    want = kids.nth(hidden).locator(".lbl").text_content() or ""
    kids.nth(hidden).click()
    page.wait_for_selector(f"{ROWS}.method.selected")
    assert _selected(page) == want
    shot(page, "profile-find-jump")


def test_arrows_walk_parents_and_children(page: Any) -> None:
    page.locator(f"{ROWS}.method").first.click()
    table = page.locator("#tab-profile .pt-scroll")
    table.focus()
    table.press("ArrowRight")  # open parents / children
    page.wait_for_selector(f"{ROWS}.rel")
    table.press("ArrowDown")
    cursor = page.locator(f"{ROWS}.cursor")
    assert "rel" in (cursor.get_attribute("class") or "")  # the first parent, not the next method
    for _ in range(40):  # down to the first child that leads somewhere
        cls = cursor.get_attribute("class") or ""
        if "g-children" in cls and "nojump" not in cls:
            break
        table.press("ArrowDown")
    want = cursor.locator(".lbl").text_content() or ""
    table.press("Enter")
    page.wait_for_function(
        f"(document.querySelector('{ROWS}.method.selected .lbl') || {{}}).textContent === {want!r}"
    )
    outline = page.evaluate(
        "getComputedStyle(document.querySelector('#tab-profile .pt-scroll')).outlineStyle"
    )
    assert outline != "none"  # a visible focus ring on the table
