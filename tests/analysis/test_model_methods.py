"""`Trace.calls()` and `Trace.profile()`: the engine reached from the model without the model
importing it (the analysis layer registers itself)."""

from __future__ import annotations

import traceview
from support.tracebuild import make_trace
from traceview.analysis import CallTable, Profile


def _trace() -> traceview.Trace:
    return make_trace(
        [
            (1, "enter", "a.Main.run", 0, 0),
            (1, "enter", "a.Main.work", 2, 3),
            (1, "exit", "a.Main.work", 7, 13),
            (1, "exit", "a.Main.run", 9, 20),
        ]
    )


def test_calls_are_built_once_and_kept() -> None:
    trace = _trace()
    calls = trace.calls()
    assert isinstance(calls, CallTable)
    assert trace.calls() is calls
    assert traceview.calls(trace) is calls
    assert len(calls) == 2


def test_profile_on_both_clocks() -> None:
    trace = _trace()
    prof = trace.profile()
    assert isinstance(prof, Profile)
    work = trace.methods.name.index("work")
    assert int(prof.incl["wall"][work]) == 10_000
    assert int(prof.incl["cpu"][work]) == 5_000
    wall_only = trace.profile(clock="wall")
    assert wall_only.clocks == ("wall",)
