"""The real-trace corpus in ../shared/corpus (tests skip cleanly when it is absent)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

import traceview


def _find_corpus() -> Path:
    """`../shared/corpus` of the project root, or of any folder above it (a git worktree
    checked out deeper, e.g. /work/wt/name, still finds /work/shared/corpus)."""
    root = Path(__file__).resolve().parents[2]
    for folder in (root, *root.parents):
        candidate = folder.parent / "shared" / "corpus"
        if candidate.is_dir():
            return candidate
    return root.parent / "shared" / "corpus"


CORPUS = _find_corpus()
EASTERN = "easternhong-methodtrace/test.trace"  # a real app, 63k records (the corpus README)


def corpus_files() -> list[Path]:
    """Every trace file of the corpus (README excluded), sorted; empty when absent."""
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.name != "README.md")


def corpus_path(relative: str) -> Path:
    """The path of one corpus file; skips the test when the corpus is absent."""
    path = CORPUS / relative
    if not path.is_file():
        pytest.skip(f"corpus file {relative} not available")
    return path


@pytest.fixture
def corpus() -> Path:
    """The corpus folder; skips the test when it is absent."""
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus not available")
    return CORPUS


@cache
def readable() -> list[Path]:
    """The corpus traces that load (the others are the readers' tests); loaded once per run,
    shared by the engine tests."""
    out = []
    for path in corpus_files():
        try:
            traceview.load(path)
        except traceview.TraceError:
            continue
        out.append(path)
    return out
