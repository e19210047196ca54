"""Clipping one thread's calls to a time range, for `profile(..., time_range=...)`.

The range is given on one clock (wall, or cpu when there is no wall); the other clock's
bounds are found per thread by linear interpolation between that thread's events, so both
clocks measure the same stretch of the thread's life. A CPU-only trace's ranges are on its
reconstructed axis (analysis/axis.py), where the mapping is exact rather than linear: between
two of a thread's records its CPU clock stands still while other threads' records advance the
axis, then rises one for one up to the later record.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from traceview.analysis.axis import AXIS

if TYPE_CHECKING:
    from traceview.analysis.calls import CallTable

I64 = npt.NDArray[np.int64]


def clipped_times(
    calls: CallTable,
    t: int,
    clocks: tuple[str, ...],
    range_clock: str,
    time_range: tuple[int, int],
) -> tuple[dict[str, I64], npt.NDArray[np.bool_], dict[str, int]]:
    """For thread row `t`: clipped inclusive ns per call and clock, the mask of calls that
    overlap the range, and the thread's clipped total per clock."""
    start, end, keep, totals = _clip(calls, t, clocks, range_clock, time_range)
    incl = {}
    for c in start:
        e = end[c]
        e -= start[c]
        e[~keep] = 0
        incl[c] = e
    return incl, keep, totals


def clipped_spans(
    calls: CallTable,
    t: int,
    clocks: tuple[str, ...],
    range_clock: str,
    time_range: tuple[int, int],
) -> tuple[dict[str, I64], dict[str, I64], npt.NDArray[np.bool_]]:
    """For thread row `t`: each call's start and end ns per clock clipped to the range (the
    same bounds as `clipped_times`, so end - start is its clipped inclusive time) and the mask
    of calls that overlap the range."""
    start, end, keep, _ = _clip(calls, t, clocks, range_clock, time_range)
    return start, end, keep


def _clip(
    calls: CallTable,
    t: int,
    clocks: tuple[str, ...],
    range_clock: str,
    time_range: tuple[int, int],
) -> tuple[dict[str, I64], dict[str, I64], npt.NDArray[np.bool_], dict[str, int]]:
    lo, hi = (int(x) for x in calls.thread_ranges[t])
    sel = slice(lo, hi)
    rlo, rhi = time_range
    s_r, e_r = calls.start(range_clock, sel), calls.end(range_clock, sel)
    keep = overlapping(s_r, e_r, rlo, rhi)
    first, last = calls.thread_span(t, range_clock)
    starts: dict[str, I64] = {}
    ends: dict[str, I64] = {}
    totals: dict[str, int] = {}
    brackets = _brackets(calls, sel, s_r, e_r, time_range) if hi > lo else None
    for c in clocks:
        if c == range_clock:
            blo, bhi = rlo, rhi
            f_c, l_c = first, last
        else:
            if brackets is None:
                starts[c] = ends[c] = np.zeros(0, dtype=np.int64)
                totals[c] = 0
                continue
            blo, bhi = (_interp(x, rows, calls, range_clock, c) for x, rows in brackets)
            f_c, l_c = calls.thread_span(t, c)
        starts[c] = np.clip(calls.start(c, sel), blo, max(blo, bhi))
        ends[c] = np.clip(calls.end(c, sel), blo, max(blo, bhi))
        totals[c] = int(np.clip(l_c, blo, max(blo, bhi)) - np.clip(f_c, blo, max(blo, bhi)))
    return starts, ends, keep, totals


def overlapping(start: I64, end: I64, lo: int, hi: int) -> npt.NDArray[np.bool_]:
    """The calls (entry and exit times) that overlap [lo, hi): starting before `hi` and
    ending after `lo`, or of zero length inside [lo, hi)."""
    out: npt.NDArray[np.bool_] = ((start < hi) & (end > lo)) | (
        (start == end) & (start >= lo) & (start < hi)
    )
    return out


def _brackets(
    calls: CallTable, sel: slice, s_r: I64, e_r: I64, time_range: tuple[int, int]
) -> list[tuple[int, list[int]]]:
    """For each range bound: the event rows `np.interp` over the thread's sorted event rows
    would use (the last row at or before the bound and the next one), found without sorting
    the rows: one masked max/min per bound instead of a union of every enter and exit row."""
    rows = np.concatenate((calls.enter_event[sel], calls.exit_event[sel])).astype(np.int64)
    times = np.concatenate((s_r, e_r))
    out = []
    for x in time_range:
        before = rows[times <= x]
        if not len(before):
            out.append((x, [int(rows.min())]))
            continue
        j = int(before.max())
        after = rows[rows > j]
        out.append((x, [j] if not len(after) else [j, int(after.min())]))
    return out


def _interp(x: int, rows: list[int], calls: CallTable, from_clock: str, to_clock: str) -> int:
    """`x` on `from_clock` mapped to `to_clock` between the two event rows (np.interp's
    arithmetic, so the result equals interpolating over all of the thread's events)."""
    ev = calls.trace.events
    xp = ev.time(from_clock)[rows]
    fp = ev.time(to_clock)[rows]
    if from_clock == AXIS and to_clock == "cpu" and len(rows) == 2:
        # the later record's CPU step is the last stretch of axis before it (analysis/axis.py)
        return int(np.clip(fp[1] - (xp[1] - x), fp[0], fp[1]))
    return round(float(np.interp(x, xp, fp)))
