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


def calls_of(trace: Trace) -> CallTable:
    """`build_calls(trace)`: every call of the trace."""
    return build_calls(trace)


def profile_of(
    trace: Trace,
    threads: Iterable[int] | None = None,
    clock: str | None = None,
    time_range: tuple[int, int] | None = None,
) -> Profile:
    """`profile(build_calls(trace), ...)`: the statistics of a trace in one call."""
    return _profile(build_calls(trace), threads=threads, clock=clock, time_range=time_range)


__all__ = ["CallTable", "Profile", "build_calls", "calls_of", "profile_of"]
