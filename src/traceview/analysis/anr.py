"""What was slow when an ANR hit, from an Android 16 long-running dump (format.md §1.8): each
thread's calls still open at the dump — what it was doing, outermost first — then every call
that ran at least ART's threshold, with its callers, longest first.

A pure function of a session (`anr_summary`): the call table's `OPEN` calls are the stacks at
the dump — still running then, so the time each had run by the dump (until the dump's end time
when the summary packet gives it, else the thread's last event) is a lower bound, never a
finished duration (`Frame.at_least`). Closed calls at or over the threshold are the slow ones.
Calls entered before tracing began carry their start at the tracing start, so their start is
an upper bound and their time a lower bound. A dump without times (all methods) has stacks and
no durations. Times are ns on the timeline's axis; `since` puts one on the trace's start,
`monotonic` on CLOCK_MONOTONIC when the trace gives the anchor (analysis/timebase.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from traceview.analysis.calls import OPEN, SYNTH_ENTRY
from traceview.analysis.session import Session

__all__ = ["AnrSummary", "Frame", "SlowCall", "anr_summary", "threshold_ns"]

COUNTER_HZ = 24_576_000  # ART's typical counter (trace_profile.h)


@dataclass(frozen=True)
class Frame:
    """A call still running at the dump (flag `OPEN`): method row, start (ns on the axis), the
    time it had run by the dump (None without times), `before_tracing` when it was already
    running when tracing began (its start is then tracing's: it began earlier)."""

    method: int
    start_ns: int
    ns: int | None
    before_tracing: bool

    @property
    def at_least(self) -> bool:
        """Always: the call had not ended at the dump, so it ran at least `ns`."""
        return True


@dataclass(frozen=True)
class SlowCall:
    """A finished call at or over the threshold: thread row, method row, start and duration
    (ns on the axis), callers' method rows (innermost first), `at_least` when it began with
    tracing (it may have begun earlier: its duration is a lower bound)."""

    thread: int
    method: int
    start_ns: int
    ns: int
    callers: tuple[int, ...]
    at_least: bool


@dataclass(frozen=True)
class AnrSummary:
    """Per thread (the main thread first) its stack at the dump; the slow calls, longest
    first (at most `limit` of `slow_total`); `origin`: the trace's start on the axis; `shift`:
    what to add to a time on the axis for CLOCK_MONOTONIC (None: unknown)."""

    timeless: bool
    end_ns: int | None
    threshold_ns: int
    main: int
    stacks: tuple[tuple[int, tuple[Frame, ...]], ...]
    slow: tuple[SlowCall, ...]
    slow_total: int
    clock: str = "wall"  # the times' clock: thread CPU time when the trace has no wall clock
    origin: int = 0
    shift: int | None = None

    def since(self, ns: int | None) -> int | None:
        """A time on the axis as ns from the trace's start (None stays None)."""
        return None if ns is None else ns - self.origin

    def monotonic(self, ns: int | None) -> int | None:
        """A time on the axis as CLOCK_MONOTONIC ns; None when unknown (or `ns` is None)."""
        return None if ns is None or self.shift is None else ns + self.shift


def threshold_ns(session: Session) -> int:
    """ART's long-running threshold in ns: 2^22 counter ticks for dumps in raw ticks (ART
    before March 2025), else 2^23, at ART's typical 24.576 MHz counter."""
    ticks = 1 << 22 if session.trace.header.options.get("time-unit") == "ticks" else 1 << 23
    return ticks * 10**9 // COUNTER_HZ


def anr_summary(session: Session, *, limit: int = 50, minimum_ns: int | None = None) -> AnrSummary:
    """The stacks at the dump and the slow calls of `session` (`minimum_ns` overrides the
    threshold)."""
    trace, calls = session.trace, session.calls
    timeless = trace.header.axis == "order"
    threshold = threshold_ns(session) if minimum_ns is None else minimum_ns
    end = trace.header.end_ns
    main = session.main_thread()
    order = [main, *[t for t in range(len(trace.threads)) if t != main]]
    clock = "wall" if "wall" in session.clocks else session.clocks[0]
    stacks = []
    start = calls.start(clock) if len(calls) else np.zeros(0, dtype=np.int64)
    for t in order:
        lo, hi = (int(x) for x in calls.thread_ranges[t])
        if lo == hi:
            continue
        first, last = calls.thread_span(t, clock)
        rows = lo + np.flatnonzero(calls.flags[lo:hi] & OPEN)
        until = max(end, last) if end is not None else last
        frames = tuple(
            Frame(
                int(calls.method[r]),
                int(start[r]),
                None if timeless else until - int(start[r]),
                bool(calls.flags[r] & SYNTH_ENTRY) or int(start[r]) <= first,
            )
            for r in rows.tolist()
        )
        if frames:
            stacks.append((t, frames))
    slow: list[SlowCall] = []
    total = 0
    if not timeless and len(calls):
        incl = calls.incl(clock)
        closed = (calls.flags & (OPEN | SYNTH_ENTRY)) == 0
        over = np.flatnonzero(closed & (incl >= threshold))
        total = len(over)
        over = over[np.lexsort((over, -incl[over]))][: max(limit, 0)]
        thread = calls.thread
        for r in over.tolist():
            callers, p = [], int(calls.parent[r])
            while p >= 0:
                callers.append(int(calls.method[p]))
                p = int(calls.parent[p])
            first, _ = calls.thread_span(int(thread[r]), clock)
            slow.append(
                SlowCall(
                    int(thread[r]),
                    int(calls.method[r]),
                    int(start[r]),
                    int(incl[r]),
                    tuple(callers),
                    int(start[r]) <= first,
                )
            )
    # a CPU-only trace's times are each thread's CPU clock: no common origin, no anchor
    on_axis = clock == session.axis_clock
    return AnrSummary(
        timeless,
        end,
        threshold,
        main,
        tuple(stacks),
        tuple(slow),
        total,
        clock,
        session.origin if on_axis else 0,
        session.monotonic_shift if on_axis else None,
    )
