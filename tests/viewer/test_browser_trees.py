"""Top Down and Bottom Up in Chromium on a real trace (issue 22, 1 and 13): every node can be
reached (the heaviest come first, the rest stand in "N more (x ms)" rows that add up), a node
with children never looks like a leaf, Bottom Up loads, find searches the tree, and the
keyboard walks every row."""

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


def _tab(page: Any, name: str) -> Any:
    page.click(f'.tabs button[data-tab="{name}"]')
    page.wait_for_selector(f"#tab-{name} .ct-row")
    return page.locator(f"#tab-{name}")


def _pct(text: str) -> float:
    return float(text.rstrip("%")) if text else 0.0


def test_top_down_every_node_and_totals(page: Any) -> None:
    tab = _tab(page, "topdown")
    info = tab.locator(".ct-info").text_content() or ""
    assert "16351 nodes" in info and "Thread CPU" in info, info
    assert "Total CPU ms" in (tab.locator(".ct-head").text_content() or "")
    page.click("#tab-topdown .subbar button:text('Collapse all')")
    page.wait_for_function("document.querySelectorAll('#tab-topdown .ct-row').length < 40")
    rows = tab.locator(".ct-row")
    cells = [rows.nth(k).locator(".num").nth(1).text_content() for k in range(rows.count())]
    pcts = [_pct(c or "") for c in cells]
    assert sum(pcts) == pytest.approx(100.0, abs=0.05 * len(pcts) + 0.1)  # roots + "N more" = all
    # the find box walks the tree; a parent whose children were not sent is still a parent
    page.fill("#find", "ColorStateList.inflate")
    page.press("#find", "Enter")
    cursor = tab.locator(".ct-row.cursor")
    cursor.wait_for()
    assert "ColorStateList.inflate" in (cursor.locator(".lbl").text_content() or "")
    assert cursor.locator(".twisty").text_content() == "▸"
    depth = cursor.locator(".pt-name").get_attribute("style")
    tab.locator(".pt-scroll").press("ArrowRight")
    page.wait_for_selector("#tab-topdown .ct-row.cursor[aria-expanded='true']")
    tab.locator(".pt-scroll").press("ArrowDown")
    child = tab.locator(".ct-row.cursor .pt-name").get_attribute("style") or ""

    def pad(style: str | None) -> int:
        found = re.search(r"padding-left:\s*(\d+)", style or "")
        assert found is not None
        return int(found.group(1))

    assert pad(child) == pad(depth) + 14
    shot(page, "tree-topdown-find")


def test_more_rows_load_by_keyboard(page: Any) -> None:
    tab = _tab(page, "topdown")
    more = tab.locator(".ct-row.ct-more")
    if not more.count():  # open a node whose children were left out
        page.click("#tab-topdown .subbar button:text('Collapse all')")
    scroll = tab.locator(".pt-scroll")
    scroll.focus()
    scroll.press("Home")
    n = tab.locator(".ct-row").count()
    for _ in range(n + 5):  # ↓ reaches the "N more" row like any other
        if "ct-more" in (tab.locator(".ct-row.cursor").get_attribute("class") or ""):
            break
        scroll.press("ArrowDown")
    cur = tab.locator(".ct-row.cursor")
    assert "ct-more" in (cur.get_attribute("class") or "")
    text = cur.text_content() or ""
    assert re.search(r"\d+ more", text), text
    scroll.press("Enter")
    page.wait_for_selector("#tab-topdown .ct-row.cursor:not(.ct-more)")  # the first row loaded
    shot(page, "tree-more-loaded")


def test_bottom_up_loads_and_keeps_root_two_near(page: Any) -> None:
    tab = _tab(page, "bottomup")
    rows = tab.locator(".ct-row")
    assert rows.count() > 2
    page.click("#tab-bottomup .subbar button:text('Expand heavy')")
    # only the first root's heavy callers open: root two follows within a screenful or two
    where = page.evaluate(
        "() => { const t = window.traceview.views.bottomup;"
        " return [t.rows.indexOf(t.tree.roots[1]), t.tree.open.has(t.tree.roots[1])]; }"
    )
    assert 1 < where[0] < 60 and not where[1], where
    shot(page, "tree-bottomup")


def test_find_reaches_nodes_not_loaded(page: Any, eastern: Viewer) -> None:
    """Find + Enter in a tree asks the server, so a node the first answer left out is found
    (its path merged in, opened to it)."""
    tree = fetch_json(eastern, "/api/tree?kind=topdown&clock=cpu&limit=2000")  # as the UI asks
    loaded = set(tree["nodes"]["method"])
    methods = fetch_json(eastern, "/api/methods")["label"]
    prof = fetch_json(eastern, "/api/profile?clock=cpu")["methods"]["method"]
    absent = [m for m in prof if m not in loaded]
    assert absent, "every method is loaded at first: nothing to find"
    want = methods[absent[0]]
    tab = _tab(page, "topdown")
    page.fill("#find", want)
    page.press("#find", "Enter")
    cursor = tab.locator(".ct-row.cursor")
    cursor.wait_for()
    assert cursor.locator(".pt-name").get_attribute("title") == want
    shot(page, "tree-find-unloaded")
