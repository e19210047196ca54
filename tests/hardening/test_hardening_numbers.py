"""Key-section numbers parsed strictly: '²', 5000-digit numbers and ids past 2**64 are bad
lines (skipped with a diagnostic) or ignored options, never a ValueError/OverflowError."""

from __future__ import annotations

import pytest

import traceview
from support import hostile
from traceview.analysis import workers as _workers


@pytest.mark.parametrize("case", sorted(hostile.number_cases()))
def test_key_numbers_never_raise_python_errors(case: str) -> None:
    trace = traceview.load(hostile.number_cases()[case])
    trace.validate()
    assert len(trace.events) == 4
    assert trace.header.elapsed_ns is None or abs(trace.header.elapsed_ns) < 2**63
    assert trace.header.pid is None or abs(trace.header.pid) < 2**63


@pytest.mark.parametrize(
    "case", ["version-superscript", "thread-superscript", "thread-2to64", "method-2to64"]
)
def test_bad_numbers_are_bad_key_lines(case: str) -> None:
    trace = traceview.load(hostile.number_cases()[case])
    assert "bad-key-line" in {d.code for d in trace.diagnostics}


def test_huge_line_number_is_no_line() -> None:
    trace = traceview.load(hostile.number_cases()["line-huge"])
    assert trace.methods.line.tolist()[-1] == -1


@pytest.mark.parametrize("value", ["\u00b2", "9" * 5000, "-3", "x"])
def test_workers_env_parsed_strictly(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACEVIEW_WORKERS", value)
    assert _workers.default_workers() == 1
