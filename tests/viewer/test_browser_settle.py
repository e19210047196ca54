"""`settle()` (support/browserkit.py), the wait the browser tests use instead of fixed sleeps:
it holds while a panel is busy, a tile is in flight, relations load or a transition runs, and
lets go once they end; and the viewer still has the fields it reads."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from support.browserkit import Viewer, serving, settle
from support.viewer_trace import viewer_trace
from traceview.writer import write

pytestmark = pytest.mark.browser

STATES = [
    "document.body.classList.add('busy')",
    "window.traceview.views.timeline.pending = true",
    "window.traceview.views.timeline.tiles.pending.add('k')",
    "window.traceview.views.profile.expanded.set(1, 'loading')",
]
CLEAR = """() => {
    document.body.classList.remove('busy');
    const {timeline, profile} = window.traceview.views;
    timeline.pending = false;
    timeline.tiles.pending.clear();
    profile.expanded.clear();
}"""


@pytest.fixture(scope="module")
def viewer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Viewer]:
    path = tmp_path_factory.mktemp("settle") / "v.trace"
    write(viewer_trace(), path)
    with serving(path) as v:
        yield v


@pytest.fixture
def page_url(viewer: Viewer) -> str:
    """The page the `page` fixture (tests/conftest.py) opens: the live viewer."""
    return viewer.url


def test_the_viewer_has_what_settle_reads(page: Any) -> None:
    kinds = page.evaluate(
        """() => { const {timeline, profile} = window.traceview.views;
            return [typeof timeline.pending, timeline.tiles.pending instanceof Set,
                    profile.expanded instanceof Map]; }"""
    )
    assert kinds == ["boolean", True, True]


@pytest.mark.parametrize("state", STATES)
def test_settle_holds_while_busy_and_lets_go_after(page: Any, state: str) -> None:
    page.evaluate(state)
    with pytest.raises(AssertionError, match="still busy"):
        settle(page, limit_ms=300)
    page.evaluate(CLEAR)
    settle(page)


def test_settle_waits_for_the_page_to_finish(page: Any) -> None:
    page.evaluate(
        """() => { document.body.classList.add('busy');
            setTimeout(() => document.body.classList.remove('busy'), 300); }"""
    )
    settle(page)
    assert page.evaluate("document.querySelector('.busy')") is None


def test_settle_works_under_the_real_csp(browser: Any, viewer: Viewer) -> None:
    page = browser.new_page()  # no CSP bypass: `settle` evaluates, it does not poll with eval
    page.goto(viewer.url)
    page.wait_for_selector("body[data-ready='1']", state="attached")
    settle(page)
    page.close()
