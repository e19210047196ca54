"""The timeline axis of a trace without a wall clock, reconstructed from the order of records.

Old Dalvik traces (`clock=thread-cpu`) time each record on its own thread's CPU clock, so two
threads' times are not comparable. Records are written in time order across threads, though,
so the file order is a global order: walking it, each record advances one global clock by its
own thread's CPU delta since that thread's previous record (0 for a thread's first record).
The result, `record_axis`, is monotonic overall and per thread; within a thread it advances
exactly like the thread's CPU clock plus the time other threads ran in between (so it reads as
"CPU time of every traced thread so far").

Session lays threads out on it (analysis/session.py) and takes time ranges on it: the events
carry it as one more time column, `"axis"` (`AxisEvents`), so a range on the axis is clipped by
the same code as a wall range of a dual-clock trace (analysis/ranges.py): each thread's CPU
bounds are interpolated between its records. Gaps on the axis where other threads ran are flat
on the thread's CPU clock, so a range keeps exactly the CPU time the thread spent inside it.
Profiles still report only the real CPU clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Final

import numpy as np
import numpy.typing as npt

from traceview.model import EventTable

I64 = npt.NDArray[np.int64]
AXIS: Final = "axis"  # the time-column name of the reconstructed axis (a range clock, not a clock)


@dataclass(frozen=True, eq=False)
class AxisEvents(EventTable):
    """The events plus `axis`: reconstructed ns per event (`record_axis`, computed on first
    use), readable as `time("axis")`; `clocks` still names only the recorded clocks."""

    @cached_property
    def axis(self) -> I64:
        """Reconstructed ns of every event (needs the CPU clock)."""
        return record_axis(self.thread, self.time("cpu"))

    def time(self, clock: str) -> I64:
        """The column for `clock` ("cpu", "wall" or "axis"); KeyError if there is none."""
        return self.axis if clock == AXIS else super().time(clock)


def with_axis(events: EventTable) -> AxisEvents:
    """`events` able to give the reconstructed axis of its records (sharing the columns)."""
    return AxisEvents(events.thread, events.method, events.action, events.cpu, events.wall)


def record_axis(thread: npt.NDArray[np.integer], cpu: I64) -> I64:
    """Reconstructed ns of every event (file order), starting at 0: the running sum over the
    file of each record's CPU advance on its own thread."""
    n = len(cpu)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(thread, kind="stable")  # each thread's rows together, in file order
    by_thread = cpu[order]
    step = np.empty(n, dtype=np.int64)
    step[0] = 0
    np.subtract(by_thread[1:], by_thread[:-1], out=step[1:])
    th = thread[order]
    step[1:][th[1:] != th[:-1]] = 0  # a thread's first record does not move the clock
    np.maximum(step, 0, out=step)  # readers keep each thread's clock rising; never step back
    delta = np.empty(n, dtype=np.int64)
    delta[order] = step
    out: I64 = np.cumsum(delta, dtype=np.int64)
    return out
