"""Shared fixtures: the real-trace corpus in ../shared/corpus (skipped cleanly when absent) and
the browser tests' headless Chromium (`browser`), viewer page (`page`) and live viewer on the
corpus's small real trace (`eastern`); a test that uses the browser carries the `browser`
mark (tests/test_suite_rules.py). In this process no trace counts as small
(`compiled_passes`): the viewer's warm-up goes on past a small trace's first screens
(analysis/small.py), so its later steps run on the suite's small traces too."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from support.browserkit import VIEWPORT, Viewer, launch, open_page, serving, settle
from support.corpus import EASTERN, corpus, corpus_path

__all__ = ["browser", "compiled_passes", "corpus", "eastern", "page"]


@pytest.fixture(autouse=True)
def compiled_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite's traces are small: without this the warm-up would stop after their first
    screens, and its later steps would go untested in-process."""
    import traceview.analysis.small as small

    monkeypatch.setattr(small, "SMALL", -1)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="rewrite tests/golden/ from the corpus (then review the diff)",
    )


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for the whole run (skips when Playwright or Chromium is missing)."""
    with launch() as chromium:
        yield chromium


@pytest.fixture(scope="module")
def eastern() -> Iterator[Viewer]:
    """The live viewer on the corpus's easternhong test.trace, one per module (skips when the
    corpus is absent)."""
    with serving(corpus_path(EASTERN)) as viewer:
        yield viewer


@pytest.fixture
def page(browser: Any, page_url: str, request: pytest.FixtureRequest) -> Iterator[Any]:
    """The viewer at the module's `page_url` fixture, its profile table shown and settled;
    closed afterwards, and the test fails if the page logged a script or console error. The
    window is the module's `VIEWPORT` when it sets one (support/browserkit.py's otherwise)."""
    errors: list[str] = []
    viewport = getattr(request.module, "VIEWPORT", VIEWPORT)
    pg = open_page(browser, page_url, errors, viewport=viewport)
    pg.wait_for_selector("#tab-profile .pt-row.method")
    settle(pg)
    yield pg
    pg.close()
    assert not errors, errors
