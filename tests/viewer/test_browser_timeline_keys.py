"""The timeline's thread rows in Chromium (issue 22, items 4 and 5): a deep main thread takes
at most part of the pane and scrolls its levels inside itself (twisty shown open), so workers
stay in view; the thread list is one Tab stop walked with the arrows, "only" reachable by
key; the timeline shows a focus ring."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.browserkit import Viewer, serving, shot
from support.tracebuild import make_trace
from traceview.writer import write

pytestmark = pytest.mark.browser
VIEWPORT = {"width": 1280, "height": 800}  # the `page` fixture's window (tests/conftest.py)
DEPTH = 88
WORKERS = 30


def _deep_trace() -> Any:
    ev: list[tuple[int, str, str, int | None, int | None]] = []
    ev.append((1, "enter", "android.os.Looper.loop", 0, 0))
    for d in range(DEPTH):  # a chain 88 calls deep, then a sibling: no stem to fold
        ev.append((1, "enter", f"com.app.deep.Level{d}.call", 1 + d, 1 + d))
    for d in reversed(range(DEPTH)):
        ev.append((1, "exit", f"com.app.deep.Level{d}.call", 300 - d, 300 - d))
    ev.append((1, "enter", "com.app.Other.run", 310, 310))
    ev.append((1, "exit", "com.app.Other.run", 320, 320))
    ev.append((1, "exit", "android.os.Looper.loop", 400, 400))
    for w in range(WORKERS):
        tid = 10 + w
        ev.append((tid, "enter", "com.app.Worker.run", 5 + w, 5 + w))
        ev.append((tid, "exit", "com.app.Worker.run", 50 + 2 * w, 50 + 2 * w))
    ev.append((99, "enter", "java.lang.Object.wait", 60, 60))  # a thread that never ran
    ev.append((99, "exit", "java.lang.Object.wait", 60, 60))
    names = {1: "main", 99: "idle-daemon"} | {10 + w: f"worker-{w}" for w in range(WORKERS)}
    return make_trace(ev, names=names)


@pytest.fixture(scope="module")
def viewer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Viewer]:
    path: Path = tmp_path_factory.mktemp("deep") / "deep.trace"
    write(_deep_trace(), path)
    with serving(path) as v:
        yield v


@pytest.fixture
def page_url(viewer: Viewer) -> str:
    """The page the `page` fixture (tests/conftest.py) opens: the live viewer."""
    return viewer.url


@pytest.fixture
def page(page: Any) -> Any:
    """The shared `page` (tests/conftest.py), once the main thread's row holds every level."""
    page.wait_for_function(
        "(() => { const t = window.traceview.views.timeline;"
        f" return t.rows.length && t.rows[0].full >= {DEPTH}; }})()"
    )
    return page


def test_deep_row_is_capped_and_scrolls_inside(page: Any) -> None:
    rows = page.evaluate(
        "(() => { const t = window.traceview.views.timeline;"
        " return { rows: t.rows, pane: t.scroll.clientHeight }; })()"
    )
    main = rows["rows"][0]
    assert main["capped"] and main["h"] <= 0.6 * rows["pane"] + 30, (main, rows["pane"])
    # workers start inside the pane
    assert rows["rows"][1]["y"] < rows["pane"]
    twisty = page.locator("#timeline .tl-label").first.locator(".tl-twisty").text_content()
    assert twisty == "▾"
    box = page.locator("#timeline .tl-canvas").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 40)
    page.keyboard.down("Alt")  # Alt+wheel: the row's levels; the plain wheel scrolls the rows
    page.mouse.wheel(0, 300)
    page.keyboard.up("Alt")
    page.wait_for_function("window.traceview.views.timeline.offsets.size > 0")
    assert page.evaluate("window.traceview.views.timeline.scroll.scrollTop") == 0
    idle = page.locator("#timeline .tl-label", has_text="idle-daemon").locator(".tl-busy")
    assert idle.text_content() == "idle"  # not "0.00 µs"
    shot(page, "timeline-deep-capped")


def test_thread_list_is_one_tab_stop(page: Any) -> None:
    stops = page.evaluate(
        "[...document.querySelectorAll('#timeline input, #timeline button, #timeline [tabindex]')]"
        ".filter(e => e.tabIndex >= 0 && !e.disabled).length"
    )
    assert stops <= 2, stops  # the list and the canvas (was a checkbox per thread)
    page.locator("#timeline .tl-spacer").focus()
    page.keyboard.press("ArrowDown")
    focus = page.locator("#timeline .tl-label.focus")
    assert "worker" in (focus.locator(".tl-name").text_content() or "")
    assert focus.locator(".tl-only").is_visible()
    name = focus.locator(".tl-name").text_content() or ""
    page.keyboard.press("o")
    page.wait_for_selector("#threads-chip:not([hidden])")
    assert name in (page.locator("#threads-chip").text_content() or "")
    page.keyboard.press("Tab")  # from the list to the canvas: a visible ring
    ring = page.evaluate(
        "getComputedStyle(document.querySelector('#timeline .tl-canvas')).outlineStyle"
    )
    assert ring == "solid"
    shot(page, "timeline-keyboard")
