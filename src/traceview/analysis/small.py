"""Small traces analysed by numpy alone: below `SMALL` records the compiled kernels' import and
first load (about half a second of CPU, and seconds per kernel to compile while numba's cache
is empty, as after a fresh install) cost more than the work itself. So the call table, the
profile of whole threads and the direct profile of such a trace take the numpy pairing
(`calls.pair_records`, which also repairs unbalanced threads) and counting
(`parts.thread_stats`): the same rows, edges and diagnostics as the compiled passes
(tests/analysis/test_small.py), and `traceview demo` draws its first screen without numba.
Here: the threshold, the call table and its exclusive times (`CallTable.excl` of a small
range: the frames view of the first screen); the profile's numpy counting is
`profile.whole_thread_parts`, the direct profile's `direct.numpy_direct`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.calls import (
    REPAIRS,
    CallTable,
    _Columns,
    depth_dtype,
    pair_records,
    repair_counts,
    repair_diagnostics,
)
from traceview.analysis.kernels.columns import Calls
from traceview.analysis.pairing import Paired
from traceview.model import Trace, method_dtype

I64 = npt.NDArray[np.int64]
SMALL = 1 << 17  # records: up to this many, numpy (every thread's calls fit a direct tile too)
FEW = 256  # threads: numpy pairs thread by thread, a few dozen calls each (30,000 threads: seconds)


def is_small(records: int, threads: int) -> bool:
    """Whether a trace (or table) of `records` records (or calls) on `threads` thread rows is
    analysed by numpy."""
    return records <= SMALL and threads <= FEW


def exclusive(calls: Calls, lo: int, hi: int, times: I64, incl: I64) -> I64:
    """`kernels.exclusive.exclusive_times` by numpy (a range of at most `SMALL` calls): each
    call's inclusive time (`incl[i - lo]` when given, else its exit's time minus its enter's)
    minus its children's in the range."""
    own = incl if len(incl) else times[calls.exit_event[lo:hi]] - times[calls.enter_event[lo:hi]]
    out = own.astype(np.int64)  # a copy
    parent = calls.parent[lo:hi].astype(np.int64)
    inside = parent >= lo
    np.subtract.at(out, parent[inside] - lo, own[inside])
    return out


def by_thread(thread: npt.NDArray[np.integer], n_threads: int) -> tuple[I64, I64]:
    """Event rows grouped by thread row (each thread's in file order) and each group's
    bounds."""
    order = np.argsort(thread, kind="stable").astype(np.int64)
    bounds = np.searchsorted(thread[order], np.arange(n_threads + 1)).astype(np.int64)
    return order, bounds


def numpy_calls(trace: Trace) -> CallTable:
    """`calls.build_calls(trace)` by the numpy pairing, thread by thread."""
    ev = trace.events
    n = len(trace.threads)
    idx = np.int32 if len(ev) < 2**31 - 1 else np.int64
    order, bounds = by_thread(ev.thread, n)
    stats = dict.fromkeys(REPAIRS, 0)
    paired: list[Paired] = []
    spans = np.full((n, 2), -1, dtype=np.int64)
    for t in range(n):
        rows: npt.NDArray[np.signedinteger[Any]] = order[bounds[t] : bounds[t + 1]].astype(idx)
        if not len(rows):
            paired.append(Paired.empty())
            continue
        p, dropped = pair_records(ev.action[rows], ev.method[rows], rows)
        for key, value in repair_counts(p, dropped).items():
            stats[key] += value
        spans[t] = rows[0], rows[-1]
        paired.append(p)
    starts = np.zeros(n + 1, dtype=np.int64)
    np.cumsum([p.rows for p in paired], out=starts[1:])
    height = max(
        (int(p.depth.max()) + 1 for p in paired if p.rows and p.depth is not None), default=0
    )
    out = _Columns(int(starts[-1]), idx, depth_dtype(height), method_dtype(len(trace.methods)))
    for t, p in enumerate(paired):
        if p.rows:
            out.put(int(starts[t]), p)
    table = out.table(trace, np.stack([starts[:-1], starts[1:]], axis=1), spans)
    table.diagnostics.extend(repair_diagnostics(stats))
    return table
