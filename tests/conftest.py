"""Shared fixtures: the real-trace corpus in ../shared/corpus (skipped cleanly when absent) and
the browser tests' headless Chromium (`browser`) and viewer page (`page`); a test that uses
either carries the `browser` mark (tests/test_suite_rules.py). In this process the engine's
compiled passes also run on small traces (`compiled_passes`): the product analyses traces
below `analysis.small.SMALL` records by numpy alone, and tests/analysis/test_small.py checks
that path against them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from support.browserkit import launch, open_page, settle
from support.corpus import corpus

__all__ = ["browser", "compiled_passes", "corpus", "page"]


@pytest.fixture(autouse=True)
def compiled_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite's traces are small: without this they would all take the numpy paths of
    analysis/small.py, and the compiled passes would go untested in-process."""
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
