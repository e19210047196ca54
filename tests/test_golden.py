"""Every corpus trace against its golden summary in tests/golden/ (`--update-golden` rewrites
them): a change in any number, variant or diagnostic shows as a readable diff."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.corpus import CORPUS, corpus_files
from support.corpus_table import EXPECTED, refused
from support.golden import GOLDEN, golden_path, summary


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_golden_summary(path: Path, request: pytest.FixtureRequest) -> None:
    name = str(path.relative_to(CORPUS))
    got = summary(path, name)
    if name in EXPECTED:  # the summary refuses exactly the files the corpus table refuses
        words = refused(name)
        assert ("\nrefused: " in got) == (words is not None), name
        assert words is None or words in got, (name, words)
    target = golden_path(name)
    if request.config.getoption("--update-golden"):
        GOLDEN.mkdir(exist_ok=True)
        target.write_text(got, encoding="utf-8")
    assert target.is_file(), f"no golden summary for {name}: run pytest --update-golden"
    assert got == target.read_text(encoding="utf-8")
