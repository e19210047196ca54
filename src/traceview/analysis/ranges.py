"""What a time range keeps of a call table, one rule for every view: every call overlapping
it, with its times clipped to it.

The range is given on one clock (wall, or the reconstructed axis when there is no wall); the
other clock's bounds are found per thread by linear interpolation between that thread's
events, so both clocks measure the same stretch of the thread's life. A CPU-only trace's
ranges are on its reconstructed axis (analysis/axis.py), where the mapping is exact rather
than linear: between two of a thread's records its CPU clock stands still while other
threads' records advance the axis, then rises one for one up to the later record.

`cut_thread` lays a range on a table as a small `ThreadCut` per thread: the rows near the
range (found by binary search, never a scan of the thread) and each clock's bounds. The
profile and the merged trees take the cuts as they are (`whole_thread` for no range): their
compiled passes clip each call as they read it (analysis/kernels/edges.py), so a range makes no
table and no call-sized column.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from traceview.analysis.axis import AXIS
from traceview.analysis.calls import search_starts
from traceview.analysis.kernels.columns import Cut
from traceview.analysis.kernels.native import Native

if TYPE_CHECKING:
    from traceview.analysis.calls import CallTable

I64 = npt.NDArray[np.int64]
_MIN, _MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)
_overlapping = Native("edges", "overlapping")  # native code: no numba to import


@dataclass(frozen=True, eq=False)
class ThreadCut:
    """A time range laid on one thread of a call table: `lo`/`hi` the row segments near it
    (`near`), `range_clock` and `span` the range, `clip[clock]` each clock's bounds (on the
    range's own clock the range itself; `hi >= lo`) and `totals[clock]` the thread's time
    inside them (last minus first event, clipped). A whole thread (`whole_thread`) has no
    `range_clock`: all its rows, nothing clipped."""

    thread: int
    lo: I64
    hi: I64
    range_clock: str | None
    span: tuple[int, int]
    clip: dict[str, tuple[int, int]]
    totals: dict[str, int]

    def bounds(self, clocks: tuple[str, ...]) -> I64:
        """The range then each of `clocks`' bounds (two clocks' room), as the kernels take
        them."""
        out = np.zeros(6, dtype=np.int64)
        out[:2] = self.span
        for i, c in enumerate(clocks[:2]):
            out[2 + 2 * i : 4 + 2 * i] = self.clip[c]
        return out


@dataclass(frozen=True, eq=False)
class Segments:
    """Cuts laid end to end, as the compiled passes take them: segment j is rows [lo[j],
    hi[j]) of thread row `thread[j]` with that thread's `bounds(clocks)` in `bounds[j]`;
    `range_clock` is the cuts' (None: whole threads, nothing clipped)."""

    lo: I64
    hi: I64
    thread: I64
    bounds: I64
    range_clock: str | None

    @staticmethod
    def of(cuts: Sequence[ThreadCut], clocks: tuple[str, ...]) -> Segments:
        """The segments of `cuts` (in their order) with their bounds on `clocks`."""

        def cat(parts: list[I64], shape: tuple[int, ...]) -> I64:
            return np.concatenate(parts) if parts else np.zeros(shape, dtype=np.int64)

        return Segments(
            cat([c.lo for c in cuts], (0,)),
            cat([c.hi for c in cuts], (0,)),
            cat([np.full(len(c.lo), c.thread, dtype=np.int64) for c in cuts], (0,)),
            cat([np.tile(c.bounds(clocks), (len(c.lo), 1)) for c in cuts], (0, 6)),
            cuts[0].range_clock if cuts else None,
        )

    def cut(self, piece: tuple[I64, I64, I64], range_times: I64) -> Cut:
        """A piece of the segments (its `lo`, `hi` and the segment each row pair comes from,
        as `workers.pieces` cuts them) as the compiled passes take it; `range_times` is the
        range clock's time column (empty for whole threads)."""
        lo, hi, which = piece
        clip = self.range_clock is not None
        return Cut(lo, hi, self.thread[which], self.bounds[which], clip, range_times)


def cut_thread(
    calls: CallTable,
    t: int,
    clocks: tuple[str, ...],
    range_clock: str,
    time_range: tuple[int, int],
) -> ThreadCut:
    """Thread row `t`'s cut: the rows near the range and, per clock of `clocks`, its bounds
    and the thread's clipped total."""
    rlo, rhi = time_range
    times = calls.trace.events.time(range_clock)
    lo, hi = near(calls, t, times, rlo, rhi)
    brackets = None
    if any(c != range_clock for c in clocks) and len(lo):
        brackets = [_brackets(calls, t, times, int(lo[0]), int(hi[-1]), x) for x in time_range]
    clip: dict[str, tuple[int, int]] = {}
    totals: dict[str, int] = {}
    for c in clocks:
        if c == range_clock:
            blo, bhi = rlo, rhi
        elif brackets is None:
            clip[c], totals[c] = (0, 0), 0
            continue
        else:
            blo, bhi = (
                _interp(x, r, calls, range_clock, c)
                for x, r in zip(time_range, brackets, strict=True)
            )
        bhi = max(blo, bhi)
        first, last = calls.thread_span(t, c)
        clip[c] = (blo, bhi)
        totals[c] = min(max(last, blo), bhi) - min(max(first, blo), bhi)
    return ThreadCut(t, lo, hi, range_clock, (rlo, rhi), clip, totals)


def whole_thread(calls: CallTable, t: int, clocks: tuple[str, ...]) -> ThreadCut:
    """Thread row `t` as a cut that keeps and clips nothing: all its rows, unbounded."""
    lo, hi = (int(x) for x in calls.thread_ranges[t])
    rows = np.array([lo] if hi > lo else [], dtype=np.int64)
    everything = (_MIN, _MAX)
    clip = dict.fromkeys(clocks, everything)
    totals = {c: calls.thread_total(t, c) for c in clocks}
    return ThreadCut(t, rows, rows + (hi - lo), None, everything, clip, totals)


def near(calls: CallTable, t: int, times: I64, lo: int, hi: int) -> tuple[I64, I64]:
    """The rows of thread row `t` near [lo, hi) ns on `times`' clock, as (lo, hi) row segments:
    the last call starting before `lo` with its ancestors, the calls starting inside, and the
    one after. Every call overlapping the range is among them (one that starts before `lo`
    and is not such an ancestor ended before the last one started), and so is every kept
    call's caller. Two binary searches and one step per ancestor: never the whole thread."""
    first, end = (int(x) for x in calls.thread_ranges[t])
    a = search_starts(times, calls.enter_event, first, end, lo)
    b = search_starts(times, calls.enter_event, first, end, hi)
    chain = []
    row = a - 1
    while row >= first:
        chain.append(row)
        row = int(calls.parent[row])
    rows = np.array([*chain[::-1], a], dtype=np.int64)
    # runs of consecutive rows: the ancestors, then [a, b] (the chain ends at a - 1)
    starts = np.flatnonzero(np.diff(rows, prepend=-2) != 1)
    seg_lo = rows[starts]
    seg_hi = np.append(rows[starts[1:] - 1] + 1, min(b + 1, end))
    keep = seg_hi > seg_lo
    return seg_lo[keep], seg_hi[keep]


def clipped_spans(
    calls: CallTable, t: int, clocks: tuple[str, ...], range_clock: str, time_range: tuple[int, int]
) -> tuple[dict[str, I64], dict[str, I64], npt.NDArray[np.bool_]]:
    """For thread row `t`: each call's start and end ns per clock clipped to the range (end -
    start is its clipped inclusive time) and the mask of calls that overlap the range, over
    the whole thread (for a table already cut to the rows near the range)."""
    cut = cut_thread(calls, t, clocks, range_clock, time_range)
    sel = slice(*(int(x) for x in calls.thread_ranges[t]))
    keep = overlapping(calls, range_clock, *time_range, rows=sel)
    starts = {c: np.clip(calls.start(c, sel), *cut.clip[c]) for c in clocks}
    ends = {c: np.clip(calls.end(c, sel), *cut.clip[c]) for c in clocks}
    return starts, ends, keep


def _brackets(calls: CallTable, t: int, times: I64, first: int, last: int, x: int) -> list[int]:
    """The event rows `np.interp` over thread row `t`'s events (of the calls in rows
    [first, last), `near` the range) uses to map `x` from `times`' clock: the last one at or
    before `x` and the next one, or the first one alone when none is at or before it.

    Found in O(depth), not by a scan: starts never decrease along the rows and times never
    decrease along a thread's events, so with `c` the last row starting at or before `x`,
    every row before `c` but its callers ended before `c` started, every row after it starts
    after `x`, and the callers' exits rise going up. The last row is `c`'s entry or the exit
    of its outermost caller (or itself) ending at or before `x`; the next is the exit of the
    caller above that, or the entry of the row after `c`, whichever comes first."""
    enter, leave = calls.enter_event, calls.exit_event
    end = int(calls.thread_ranges[t][1])
    c = min(search_starts(times, enter, first, end, x + 1), last) - 1
    if c < first:
        return [int(enter[first])]
    j = int(enter[c])
    after = int(enter[c + 1]) if c + 1 < last else None
    q = c
    while q >= 0:
        r = int(leave[q])
        if times[r] > x:
            after = r if after is None else min(after, r)
            break
        j = max(j, r)
        q = int(calls.parent[q])
    return [j] if after is None else [j, after]


def overlapping(
    calls: CallTable, clock: str, lo: int, hi: int, rows: slice | None = None
) -> npt.NDArray[np.bool_]:
    """Which calls (all, or the contiguous `rows`) overlap [lo, hi) on `clock`: starting before
    `hi` and ending after `lo`, or of zero length inside [lo, hi) (`kernels.edges.kept`, the
    rule every pass over a range applies)."""
    a, b, _ = (slice(0, len(calls)) if rows is None else rows).indices(len(calls))
    out = np.zeros(max(b - a, 0), dtype=bool)
    cols = calls.columns
    _overlapping(cols.enter_event, cols.exit_event, calls.trace.events.time(clock), lo, hi, a, out)
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
