"""The report's size on the corpus traces the issue measured (12 MB for a 1.2 MB trace, 27 MB
for 3.3 MB before its payload was compressed): at most twice the trace, same zoom depth."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.corpus import corpus_path
from traceview.cli import main


@pytest.mark.parametrize(
    "name",
    [
        "aosp-perflib-studio/char_2_bytes.trace",
        "chanjin-traceviewlog/SNS_Tracing_2_Refresh.trace",
    ],
)
def test_report_at_most_twice_the_trace(name: str, tmp_path: Path) -> None:
    path = corpus_path(name)
    out = tmp_path / "r.html"
    assert main(["report", str(path), "-o", str(out)]) == 0
    assert out.stat().st_size <= 2 * path.stat().st_size
