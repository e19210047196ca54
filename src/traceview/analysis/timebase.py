"""The time base points in time are read and given on: `"trace"` (from the trace's start on the
timeline's axis) or `"monotonic"` (CLOCK_MONOTONIC, ns since boot, as `logcat -v monotonic` and
Perfetto show them), and the one rule saying when a trace can be put on CLOCK_MONOTONIC.

A trace has a monotonic anchor when the file says where its wall times sit on CLOCK_MONOTONIC:
an Android 16 dump's summary packet or a simpleperf recording (`Header.monotonic_offset_ns`), or
an ART trace's header start time (µs of CLOCK_MONOTONIC, format.md §1.6). `Session` applies the
rule (`Session.monotonic_shift`), so the command line, the exporters and the viewer agree.
"""

from __future__ import annotations

from typing import Literal

from traceview.model import Header, Trace

TimeBase = Literal["trace", "monotonic"]
TIME_BASES: tuple[TimeBase, ...] = ("trace", "monotonic")
ART = ("regular", "split", "data-only", "streaming", "streaming-nosummary", "v2", "v2-streaming")


def monotonic_offset(header: Header) -> int | None:
    """What to add to a wall time (ns) to read it on CLOCK_MONOTONIC, when the file says: an
    Android 16 dump's summary packet or a simpleperf recording (`monotonic_offset_ns`), an
    ART trace's header start time (µs of CLOCK_MONOTONIC, format.md 1.6; Dalvik's was the
    time of day); None otherwise. (ART from 2023-02 to 2024-03 wrote TSC-derived µs there;
    no file tells those apart.)"""
    if header.monotonic_offset_ns is not None:
        return header.monotonic_offset_ns
    if header.variant in ART and header.start_time_us and header.vm != "dalvik":
        return header.start_time_us * 1000
    return None


def monotonic_shift(trace: Trace, axis_clock: str, origin: int) -> int | None:
    """What to add to a time on the timeline's axis (ns, as the wall column holds it) to read
    it on CLOCK_MONOTONIC: `monotonic_offset` when the axis is the wall clock and the trace's
    start lands at or after boot; None when the trace gives no anchor."""
    if axis_clock != "wall" or trace.header.axis == "order":
        return None
    offset = monotonic_offset(trace.header)
    if offset is None or origin + offset < 0:
        return None
    return offset


def no_anchor(trace: Trace, axis_clock: str) -> str:
    """Why a trace's times cannot be put on CLOCK_MONOTONIC (one line, naming the file)."""
    h = trace.header
    if h.axis == "order":
        why = "it has no times (an all-methods dump: the order of events)"
    elif axis_clock != "wall":
        why = "it has no wall clock (thread CPU time only)"
    elif h.variant == "low-overhead":
        why = (
            "the dump has no summary packet giving CLOCK_MONOTONIC in ns (type 3: only the "
            "newest ART writes one)"
        )
    elif h.variant in ART and h.vm == "dalvik":
        why = "Dalvik's header start time is the time of day, not CLOCK_MONOTONIC"
    elif h.variant in ART and not h.start_time_us:
        why = "its header has no start time"
    elif monotonic_offset(h) is not None:
        why = "its CLOCK_MONOTONIC start would fall before boot (a damaged start time)"
    else:
        why = (
            "it records no CLOCK_MONOTONIC start (ART traces, Android 16 dumps with a summary "
            "packet and simpleperf recordings do)"
        )
    return f"{trace.source or 'this trace'}: times cannot be shown on CLOCK_MONOTONIC: {why}"


def monotonic_text(ns: int) -> str:
    """A CLOCK_MONOTONIC time as seconds with every ns digit (`86400.123456789 s`), exact so
    it matches Perfetto's ns and `logcat -v monotonic`'s seconds digit for digit."""
    sign = "-" if ns < 0 else ""
    whole, frac = divmod(abs(ns), 10**9)
    return f"{sign}{whole}.{frac:09d} s"
