"""The timeline axis of a trace without a wall clock, reconstructed from the order of records.

Old Dalvik traces (`clock=thread-cpu`) time each record on its own thread's CPU clock, so two
threads' times are not comparable. Records are written in time order across threads, though,
so the file order is a global order: walking it, each record advances one global clock by its
own thread's CPU delta since that thread's previous record (0 for a thread's first record).
The result, `record_axis`, is monotonic overall and per thread; within a thread it advances
exactly like the thread's CPU clock plus the time other threads ran in between (so it reads as
"CPU time of every traced thread so far"). Session uses it to lay threads out on one axis
(analysis/session.py); profiles and time ranges stay on the real clocks.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]


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
