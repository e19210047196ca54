"""Shared fixtures: the real-trace corpus in ../shared/corpus (skipped cleanly when absent) and
the browser tests' headless Chromium (`browser`) and viewer page (`page`); a test that uses
either carries the `browser` mark (tests/test_suite_rules.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from support.browserkit import launch, open_page, settle
from support.corpus import corpus

__all__ = ["browser", "corpus", "page"]


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


@pytest.fixture
def page(browser: Any, page_url: str) -> Iterator[Any]:
    """The viewer at the module's `page_url` fixture, its profile table shown and settled;
    closed afterwards, and the test fails if the page logged a script or console error."""
    errors: list[str] = []
    pg = open_page(browser, page_url, errors)
    pg.wait_for_selector("#tab-profile .pt-row.method")
    settle(pg)
    yield pg
    pg.close()
    assert not errors, errors
