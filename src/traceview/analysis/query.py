"""`Query`: what a user selected — threads, a clock, a time range, "my code" packages, a
method renaming and the time base points in time are shown on — as one frozen, hashable value.

Every front end (CLI options, the viewer's URL parameters, the Python API) writes what a user
asked as an `Ask` (analysis/ask.py), which `Session.resolve(ask)` turns into a `Query` through
`Session.query(...)`: it checks the values against the trace and fills in the defaults, and
every derived view is a function of (session, query). The rules that decide a
default are written here once: `default_clock` (the clock numbers are shown on) and
`range_clock` (the clock time ranges and the timeline are on).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Literal, Protocol

from traceview.analysis.timebase import TimeBase
from traceview.model import MethodTable, Trace

Clock = Literal["cpu", "wall"]
CLOCKS: tuple[Clock, ...] = ("cpu", "wall")
# what a time range may be on: a clock, or "axis", the timeline axis of a trace without a
# wall clock, reconstructed from the order of records (analysis/axis.py)
RangeClock = Literal["cpu", "wall", "axis"]


class Rename(Hashable, Protocol):
    """A method renaming (deobfuscation): `methods(table)` returns the table with original
    names. Hashable, because it is part of a cache key; equal renamings give equal views."""

    def methods(self, methods: MethodTable, /) -> MethodTable: ...


@dataclass(frozen=True)
class TimeRange:
    """`[lo, hi)` in absolute ns on `clock`, as the event columns hold them ("axis": on the
    reconstructed axis of a CPU-only trace; each thread's CPU bounds are interpolated)."""

    lo: int
    hi: int
    clock: RangeClock

    def __post_init__(self) -> None:
        if self.hi < self.lo:
            raise ValueError(f"time range ends before it starts ({self.lo} > {self.hi} ns)")

    def narrowed(self, other: TimeRange | None) -> TimeRange:
        """This range narrowed by `other` on the same clock: their overlap (empty at the later
        start when they are disjoint); a range on another clock replaces it, None keeps it."""
        if other is None:
            return self
        if other.clock != self.clock:
            return other
        lo, hi = max(self.lo, other.lo), min(self.hi, other.hi)
        return TimeRange(lo, max(lo, hi), self.clock)


@dataclass(frozen=True)
class Query:
    """A selection. `threads`: thread rows (sorted, distinct), None for every thread;
    `clock`: the clock numbers are sorted and laid out on; `time_range`: None for the whole
    trace; `my_code`: package prefixes whose frames stay (others fold into their caller),
    dotted and sorted; `rename`: a method renaming applied to every name shown; `time`: the
    time base points in time are shown on ("trace": from its start; "monotonic":
    CLOCK_MONOTONIC, analysis/timebase.py; it changes no number, so no cache key holds it).

    Build one with `Session.resolve(ask)` or `Session.query(...)`: they validate the values
    and resolve the defaults, so two queries that select the same thing are equal.
    """

    threads: tuple[int, ...] | None
    clock: Clock
    time_range: TimeRange | None = None
    my_code: tuple[str, ...] = ()
    rename: Rename | None = None
    time: TimeBase = "trace"


def clocks_of(trace: Trace) -> tuple[Clock, ...]:
    """The clocks the trace records, of ("cpu", "wall") in that order."""
    return tuple(c for c in CLOCKS if c in trace.clocks)


def default_clock(trace: Trace) -> Clock:
    """traceview's time base: thread CPU unless the trace is wall-only (or says clock=wall)."""
    clocks = clocks_of(trace)
    if "cpu" in clocks and trace.header.clock != "wall":
        return "cpu"
    return clocks[0] if clocks else "wall"


def range_clock(trace: Trace) -> Clock:
    """The clock of time ranges and of the timeline axis: wall when recorded (one time line for
    every thread), else thread CPU."""
    return "wall" if "wall" in trace.clocks else "cpu"


def normalise_prefixes(prefixes: str | Iterable[str] | None) -> tuple[str, ...]:
    """`com.a,org/b/` style package prefixes (one text or several, each split at commas):
    dotted, stripped, empty ones dropped, sorted and distinct."""
    if prefixes is None:
        return ()
    words = [prefixes] if isinstance(prefixes, str) else list(prefixes)
    out = {p.strip().replace("/", ".").strip(".") for w in words for p in w.split(",")}
    return tuple(sorted(p for p in out if p))
