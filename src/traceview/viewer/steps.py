"""Stepping through a method's calls in the viewer (`/api/step/{method}`): the call of the method
that starts next after (or last before) a point of the timeline's axis, on the threads asked
for, so Enter / Shift+Enter walk the calls in time order and F zooms to the one reached.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from traceview.analysis.session import Session
from traceview.exporters.jsonshape import Json, us1

I64 = npt.NDArray[np.int64]


def _by_method(s: Session) -> tuple[I64, I64]:
    """Every call row grouped by method (stable: row order inside a method) and where each
    method's group starts (built once per session)."""

    def build() -> tuple[I64, I64]:
        method = s.calls.method
        order = np.argsort(method, kind="stable").astype(np.int64)
        bounds = np.searchsorted(method[order], np.arange(len(s.trace.methods) + 1))
        return order, bounds.astype(np.int64)

    return s.memo("calls-by-method", None, build)


def _calls_of(s: Session, method: int) -> tuple[I64, I64]:
    """The method's call rows and their starts on the timeline's axis, by start (kept)."""

    def build() -> tuple[I64, I64]:
        order, bounds = _by_method(s)
        rows = order[bounds[method] : bounds[method + 1]]
        start, _ = s.placed(rows)
        by_start = np.argsort(start, kind="stable")  # rows already in order: ties stay so
        return rows[by_start], start[by_start].astype(np.int64)

    return s.memo("method-calls", method, build)


def step_answer(
    s: Session,
    method: int,
    at_us: float,
    direction: int,
    threads: tuple[int, ...] | None,
    index: int | None = None,
) -> Json:
    """/api/step/{method}: the first call of `method` starting after `at_us` (µs on the
    timeline's axis from its origin; `direction` -1: the last one starting before it) on
    `threads` (None: all), or the one after (before) the `index`-th of them (calls starting at
    the same time are stepped one by one), with its position, depth, index among the method's
    calls there and their count; `call` null when there is none."""
    if not 0 <= method < len(s.trace.methods):
        raise ValueError(f"no method row {method}")
    if direction not in (1, -1):
        raise ValueError("dir must be 1 or -1")
    rows, start = _calls_of(s, method)
    calls = s.calls
    if threads is not None:
        thread_of = np.searchsorted(calls.thread_ranges[:, 1], rows, side="right")
        keep = np.isin(thread_of, np.asarray(threads, dtype=np.int64))
        rows, start = rows[keep], start[keep]
    if index is not None:
        k = index + direction
    else:
        at = s.origin + round(at_us * 1000)
        k = int(np.searchsorted(start, at, side="right" if direction > 0 else "left"))
        k = k if direction > 0 else k - 1
    out: Json = {"method": method, "count": len(rows), "call": None}
    if 0 <= k < len(rows):
        row = int(rows[k])
        lo, hi = s.placed(np.array([row]))
        out["call"] = {
            "row": row,
            "index": k,
            "thread": int(np.searchsorted(calls.thread_ranges[:, 1], row, side="right")),
            "depth": int(calls.depth[row]),
            "start_us": us1(int(lo[0]), s.origin),
            "end_us": us1(int(hi[0]), s.origin),
        }
    return out
