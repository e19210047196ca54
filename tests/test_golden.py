"""Every corpus trace against its golden summary in tests/golden/ (`--update-golden` rewrites
them): a change in any number, variant or diagnostic shows as a readable diff. Each summary
validates the trace, its call table and its profile, so a broken invariant fails here too."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.corpus import CORPUS, corpus_files
from support.golden import GOLDEN, describe, golden_path, summary
from support.tracebuild import make_trace
from traceview.analysis.calls import CallTable
from traceview.analysis.profile import Profile
from traceview.model import Trace


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_golden_summary(path: Path, request: pytest.FixtureRequest) -> None:
    name = str(path.relative_to(CORPUS))
    got = summary(path, name)
    target = golden_path(name)
    if request.config.getoption("--update-golden"):
        GOLDEN.mkdir(exist_ok=True)
        target.write_text(got, encoding="utf-8")
    assert target.is_file(), f"no golden summary for {name}: run pytest --update-golden"
    assert got == target.read_text(encoding="utf-8")


def small() -> Trace:
    return make_trace(
        [
            (1, "enter", "com.a.Main.run", 0, 0),
            (1, "enter", "com.a.Work.step", 2, 3),
            (1, "exit", "com.a.Work.step", 7, 9),
            (1, "exit", "com.a.Main.run", 10, 12),
        ],
        names={1: "main"},
    )


def test_a_sound_trace_is_described() -> None:
    lines = describe(small())
    assert lines[0].startswith("variant ") and "main thread main" in lines


def test_a_broken_trace_fails_its_summary() -> None:
    trace = small()
    trace.events.method[1] = len(trace.methods)  # a record of a method the trace lacks
    with pytest.raises(AssertionError, match=r"event\.method out of range"):
        describe(trace)


@pytest.mark.parametrize("table", [CallTable, Profile])
def test_a_broken_call_table_or_profile_fails_its_summary(
    table: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: object) -> None:
        raise AssertionError(f"{table.__name__} broken")

    monkeypatch.setattr(table, "validate", broken)
    with pytest.raises(AssertionError, match=f"{table.__name__} broken"):
        describe(small())
