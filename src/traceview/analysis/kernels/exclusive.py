"""Compiled kernel (numba) behind `CallTable.excl`: each call's exclusive time in one pass
over the calls, reading the times straight from the events (no call-sized temporaries). Run
as native code (kernels/native.py: it allocates nothing), so no numba is imported."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.kernels.columns import Calls
from traceview.analysis.kernels.jit import njit

I64 = npt.NDArray[np.int64]
Ints = npt.NDArray[Any]


@njit
def exclusive_times(calls: Calls, lo: int, hi: int, times: I64, incl: I64, out: I64) -> None:
    """Exclusive ns of calls [lo, hi) (whole threads, or one call's subtree) added into
    `out` (zeros, `hi - lo` rows): each call's inclusive time, `times[exit_event[i]] -
    times[enter_event[i]]` or `incl[i - lo]` when `incl` has rows, minus its children's. A
    parent comes before its children, so one pass adds a call's time to itself and takes it
    from its parent (when the parent is in the rows)."""
    parent, enter, leave = calls.parent, calls.enter_event, calls.exit_event
    given = len(incl) > 0
    for i in range(lo, hi):
        t = incl[i - lo] if given else times[leave[i]] - times[enter[i]]
        out[i - lo] += t
        p = parent[i]
        if p >= lo:
            out[p - lo] -= t
