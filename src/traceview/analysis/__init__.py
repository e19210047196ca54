"""The engine: a loaded `Trace` -> call table -> statistics and merged trees (pure functions,
no I/O). Semantics and policies: docs/engine.md; API: docs/architecture.md (Engine).

The submodules are imported by name (`traceview.analysis.profile` stays the module); the
package exports `build_calls`, `calls_of(trace)` and `profile_of(trace, ...)`.
"""

from __future__ import annotations

from collections.abc import Iterable

from traceview.analysis.calls import CallTable, build_calls
from traceview.analysis.profile import Profile
from traceview.analysis.profile import profile as _profile
from traceview.model import Trace
from traceview.model.trace import register_engine


class _Engine:
    """What `Trace.calls()` and `Trace.profile()` call (the model cannot import us)."""

    @staticmethod
    def build_calls(trace: Trace, /) -> CallTable:
        return build_calls(trace)

    @staticmethod
    def profile(
        calls: CallTable,
        /,
        *,
        threads: Iterable[int] | None,
        clock: str | None,
        time_range: tuple[int, int] | None,
    ) -> Profile:
        return _profile(calls, threads=threads, clock=clock, time_range=time_range)


register_engine(_Engine())


def calls_of(trace: Trace) -> CallTable:
    """`trace.calls()` with its type: every call of the trace (built once, kept on the trace)."""
    calls: CallTable = trace.calls()
    return calls


def profile_of(
    trace: Trace,
    threads: Iterable[int] | None = None,
    clock: str | None = None,
    time_range: tuple[int, int] | None = None,
) -> Profile:
    """`trace.profile(...)` with its type: the statistics of a trace in one call."""
    return _profile(calls_of(trace), threads=threads, clock=clock, time_range=time_range)


__all__ = ["CallTable", "Profile", "build_calls", "calls_of", "profile_of"]
