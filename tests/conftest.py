"""Shared fixtures: the real-trace corpus in ../shared/corpus (skipped cleanly when absent)."""

from __future__ import annotations

import pytest

from support.corpus import corpus

__all__ = ["corpus"]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="rewrite tests/golden/ from the corpus (then review the diff)",
    )
