"""What each sample weighs, in ns of CPU: its event count when its event type counts time
(cpu-clock, task-clock: one count is one ns), nothing for the other events of a recording that
declares such an event (sched:sched_switch samples only mark where a thread went off the CPU),
and the sampling period, estimated from the timestamps, when no event counts time (cpu-cycles,
or an old recording without its event types)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from traceview.model import Diagnostic

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]
TIME_EVENTS = ("cpu-clock", "task-clock")
MAX_WEIGHT = 1 << 36  # ns (68 s): no sample stands for more; keeps every sum in an int64
FALLBACK_NS = 1_000_000  # one sample per ms of CPU when nothing tells the period


def counts_time(event: str) -> bool:
    """True for an event whose counts are ns of CPU time (`cpu-clock`, `task-clock:u`, ...)."""
    name, _, modifiers = event.partition(":")
    return name in TIME_EVENTS and (modifiers == "" or modifiers.isalpha())


def weigh(
    event_types: list[str],
    event: I64,
    count: U64,
    has_count: npt.NDArray[np.bool_],
    thread: I64,
    time: I64,
) -> tuple[I64, float, list[Diagnostic]]:
    """(weight of each sample in ns, the sampling interval in µs, notes); samples sorted by
    (thread, time)."""
    timed = np.array([counts_time(e) for e in event_types], dtype=bool)
    valid = (event >= 0) & (event < len(timed))
    is_time = valid & has_count & (timed[np.where(valid, event, 0)] if len(timed) else False)
    diags: list[Diagnostic] = []
    if timed.any():  # a recording with a time event: the others weigh nothing
        raw = np.where(is_time, np.minimum(count, np.uint64(MAX_WEIGHT)), 0).astype(np.int64)
        clipped = int(np.count_nonzero(is_time & (count > np.uint64(MAX_WEIGHT))))
        if clipped:
            what = f"{clipped} samples claim over {MAX_WEIGHT} ns of CPU each: counted as that"
            diags.append(Diagnostic("weight-clipped", what, count=clipped))
        chosen = raw[is_time]
        interval = float(np.median(chosen)) / 1000 if len(chosen) else _period(thread, time) / 1000
    else:
        period = _period(thread, time)
        raw = np.full(len(event), period, dtype=np.int64)
        kinds = ", ".join(event_types) if event_types else "not recorded"
        what = (
            f"no event counts CPU time (events: {kinds}): every sample weighs the sampling "
            f"period estimated from the timestamps, {period / 1000:.0f} µs"
        )
        diags.append(Diagnostic("estimated-weights", what))
        interval = period / 1000
    return _bounded(raw), interval, diags


def _period(thread: I64, time: I64) -> int:
    """The median positive gap between consecutive samples of one thread (ns)."""
    if len(time) < 2:
        return FALLBACK_NS
    gap = np.diff(time)[thread[1:] == thread[:-1]]
    gap = gap[gap > 0]
    return int(np.median(gap)) if len(gap) else FALLBACK_NS


def _bounded(weight: I64) -> I64:
    """Weights whose sum fits an int64 with room to add times (a hostile count of samples)."""
    cap = (1 << 61) // max(len(weight), 1)
    return np.minimum(weight, cap) if cap < MAX_WEIGHT else weight
