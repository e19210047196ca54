"""The selection as flat tables — calls, methods, threads, edges and the profile — for the
Python API, `traceview sql` and Parquet: one definition of every column, built from a `View`.

Pure numpy (no pyarrow, no pandas): each builder returns a `Table` (api/table.py)
whose columns are int64 ns, int32 rows, bools, or object arrays of names (undecodable bytes
as `\\xNN`, `model.visible`). A clock the trace does not record is a None column. Every
number comes from the session's views, so the tables agree with `stats`, the viewer and the
exporters: a time range clips each call exactly as `Session.profile` does, and Σ `excl_*_ns`
of a method's calls is its exclusive time in the profile. Times are ns from the trace's start:
the session's origin on the timeline clock, the least time of the other clock.

Column reference: docs/tables.md (stable names; `LAYOUT` is bumped when one changes).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis import filters
from traceview.analysis.calls import RECURSIVE, CallTable
from traceview.analysis.profile import thread_parts
from traceview.analysis.query import CLOCKS
from traceview.analysis.ranges import clipped_spans
from traceview.analysis.session import Session
from traceview.analysis.view import View
from traceview.api.table import Column, Table
from traceview.model import visible

LAYOUT = 1  # version of the column layout below (docs/tables.md)
SQL_TABLES = ("calls", "methods", "threads", "edges")
I64 = npt.NDArray[np.int64]


def tables(view: View) -> dict[str, Table]:
    """The four tables `traceview sql` queries, by name."""
    return {"calls": calls_table(view), **tables_except_calls(view)}


def tables_except_calls(view: View) -> dict[str, Table]:
    """The small tables (one row per method, thread or edge): what a writer can build while
    another thread builds and writes the calls table."""
    return {
        "methods": methods_table(view),
        "threads": threads_table(view),
        "edges": edges_table(view),
    }


def origins(session: Session) -> dict[str, int]:
    """The ns subtracted from each clock's times: the session's origin on the timeline clock,
    the least time of another clock (so both columns start near 0; a CPU-only trace's CPU
    column too, its timeline being the reconstructed axis)."""
    ev = session.trace.events
    out: dict[str, int] = {}
    for c in session.clocks:
        if c == session.axis_clock:
            out[c] = session.origin
        else:
            col = ev.time(c)
            out[c] = int(col.min()) if len(col) else 0
    return out


Clipped = tuple[CallTable, dict[str, I64] | None, dict[str, I64] | None]


def selected_calls(view: View) -> Clipped:
    """The selection's calls (threads, "my code", the calls overlapping the time range) and
    their start and end ns per clock, clipped to the range (absolute, as the events hold
    them). Without a range no call is clipped and both are None: the times are the events'
    (`calls.start(clock, rows)`, read where needed, never a column of every call's)."""
    session, q = view.session, view.query
    calls = session.selection(q)
    if q.time_range is None:
        return (calls if q.threads is None else filters.threads(calls, q.threads)), None, None
    clocks = calls.clocks
    tr = q.time_range
    n = len(calls)
    keep = np.zeros(n, dtype=bool)
    start = {c: np.zeros(n, dtype=np.int64) for c in clocks}
    end = {c: np.zeros(n, dtype=np.int64) for c in clocks}
    rows_of = range(len(calls.thread_ranges)) if q.threads is None else q.threads
    for t in rows_of:  # one step per thread, each vectorised over its calls
        lo, hi = (int(x) for x in calls.thread_ranges[t])
        if hi == lo:
            continue
        s, e, k = clipped_spans(calls, t, clocks, tr.clock, (tr.lo, tr.hi))
        keep[lo:hi] = k
        for c in clocks:
            start[c][lo:hi] = s[c]
            end[c][lo:hi] = e[c]
    cut = filters.subset(calls, keep)
    return cut, {c: v[keep] for c, v in start.items()}, {c: v[keep] for c, v in end.items()}


def calls_table(view: View) -> Table:
    """One row per call of the selection, pre-order per thread, threads in row order.

    `thread` (thread row), `call` (row within its thread), `parent` (its caller's `call`, -1
    for a root), `depth`, `method` (method row), `subtree_end` (the subtree of `call` is
    `[call, subtree_end)` in its thread), `recursive` (the method is already on the stack),
    `flags` (bits: 1 recursive, 2 entry synthesised, 4 open at end, 8 unroll, 16 forced exit),
    then per clock `start_*_ns`, `end_*_ns`, `incl_*_ns`, `excl_*_ns` (clipped to the range)."""
    return next(calls_batches(view))


def calls_batches(view: View, rows: int | None = None) -> Iterator[Table]:
    """`calls_table(view)` in consecutive pieces of at most `rows` rows (one piece when None;
    at least one, empty for no calls): a writer builds each piece while it writes the last,
    and no column of the whole table is ever made (times are read from the events per piece
    when no range clips them)."""
    calls, start, end = selected_calls(view)
    n = len(calls)
    clocks = [c for c in CLOCKS if c in calls.clocks]
    # exclusive times need every child of a call: computed over the whole table, once
    excl = {
        c: calls.excl(c, incl=None if start is None or end is None else end[c] - start[c])
        for c in clocks
    }
    zero = origins(view.session)
    firsts = calls.thread_ranges[:, 0].astype(np.int64)
    step = max(rows or n, 1)
    for lo in range(0, max(n, 1), step):
        sl = slice(lo, min(n, lo + step))
        thread = calls.thread[sl].astype(np.int32)
        first = firsts[thread]
        parent = calls.parent[sl].astype(np.int64)
        cols: dict[str, Column] = {
            "thread": thread,
            "call": np.arange(sl.start, sl.stop, dtype=np.int64) - first,
            "parent": np.where(parent >= 0, parent - first, -1),
            "depth": calls.depth[sl].astype(np.int32),
            "method": calls.method[sl].astype(np.int32),
            "subtree_end": calls.subtree_end[sl].astype(np.int64) - first,
            "recursive": (calls.flags[sl] & RECURSIVE).astype(bool),
            "flags": calls.flags[sl].astype(np.int32),
        }
        for c in CLOCKS:
            if c not in excl:
                for k in ("start", "end", "incl", "excl"):
                    cols[f"{k}_{c}_ns"] = None
                continue
            if start is None or end is None:
                s, e = calls.start(c, sl), calls.end(c, sl)
            else:
                s, e = start[c][sl], end[c][sl]
            cols[f"start_{c}_ns"] = s - zero[c]
            cols[f"end_{c}_ns"] = e - zero[c]
            cols[f"incl_{c}_ns"] = e - s
            cols[f"excl_{c}_ns"] = excl[c][sl]
        yield Table(cols, sl.stop - sl.start)


def methods_table(view: View) -> Table:
    """One row per method of the trace, named as the query shows them (renamed when it
    renames): `method` (row), `id`, `class_name`, `name`, `signature`, `source_file`, `line`,
    `label` (traceview's `class.name signature`), `declared`."""
    m = view.methods
    n = len(m)
    return Table(
        {
            "method": np.arange(n, dtype=np.int32),
            "id": m.id.astype(np.uint64),
            "class_name": _names(m.class_name),
            "name": _names(m.name),
            "signature": _names(m.signature),
            "source_file": _names(m.source_file),
            "line": m.line.astype(np.int32),
            "label": _names(m.label(i) for i in range(n)),
            "declared": m.declared.astype(bool),
        },
        n,
    )


def threads_table(view: View) -> Table:
    """One row per thread of the trace: `thread` (row), `id`, `name` (None when unnamed),
    `label`, `main` (the session's main thread), `selected`, and in the selection its
    `calls` and `total_*_ns` (traceview's 100 %: last - first time, clipped to the range)."""
    th = view.trace.threads
    n = len(th)
    prof = view.profile()
    rows = np.array(prof.threads, dtype=np.int64)
    selected = np.zeros(n, dtype=bool)
    selected[rows] = True
    n_calls = np.zeros(n, dtype=np.int64)
    n_calls[rows] = prof.thread_calls
    main = np.zeros(n, dtype=bool)
    if n:
        main[view.session.main_thread()] = True
    cols: dict[str, Column] = {
        "thread": np.arange(n, dtype=np.int32),
        "id": th.id.astype(np.int64),
        "name": _names(th.name),
        "label": _names(th.label(i) for i in range(n)),
        "main": main,
        "selected": selected,
        "calls": n_calls,
    }
    for c in CLOCKS:
        if c in prof.thread_total:
            total = np.zeros(n, dtype=np.int64)
            total[rows] = prof.thread_total[c]
            cols[f"total_{c}_ns"] = total
        else:
            cols[f"total_{c}_ns"] = None
    return Table(cols, n)


def edges_table(view: View) -> Table:
    """Caller -> callee aggregates per thread, as `Session.profile` counts them: `thread`,
    `caller` (method row, -1 for (toplevel)), `callee`, `caller_recursive`,
    `callee_recursive`, `calls` and per clock `incl_*_ns` (the callee's inclusive time through
    the edge). Summed over threads they are the profile's `edges`."""
    session, q = view.session, view.query
    tr = q.time_range
    parts = thread_parts(
        session.selection(q),
        q.threads,
        None,
        (tr.lo, tr.hi) if tr is not None else None,
        tr.clock if tr is not None else None,
    )
    parts = [p for p in parts if len(p.edges)]
    thread = [np.full(len(p.edges), p.thread, dtype=np.int32) for p in parts]
    cols: dict[str, Column] = {
        "thread": _cat(thread, np.int32),
        "caller": _cat([p.edges.parent for p in parts], np.int32),
        "callee": _cat([p.edges.child for p in parts], np.int32),
        "caller_recursive": _cat([p.edges.parent_recursive for p in parts], np.bool_),
        "callee_recursive": _cat([p.edges.child_recursive for p in parts], np.bool_),
        "calls": _cat([p.edges.calls for p in parts], np.int64),
    }
    for c in CLOCKS:
        cols[f"incl_{c}_ns"] = (
            _cat([p.edges.incl[c] for p in parts], np.int64) if c in session.clocks else None
        )
    return Table(cols)


def profile_table(view: View) -> Table:
    """traceview's statistics of the selection, one row per method called, by decreasing
    inclusive time on the query's clock: `method`, `label`, `class_name`, `name`, `calls`,
    `recursive_calls`, then per clock `incl_*_ns`, `excl_*_ns`."""
    prof = view.profile()
    m = view.methods
    rows = prof.used(view.query.clock) if prof.clocks else np.zeros(0, dtype=np.intp)
    cols: dict[str, Column] = {
        "method": rows.astype(np.int32),
        "label": _names(m.label(int(i)) for i in rows),
        "class_name": _names(m.class_name[int(i)] for i in rows),
        "name": _names(m.name[int(i)] for i in rows),
        "calls": prof.calls[rows],
        "recursive_calls": prof.recursive_calls[rows],
    }
    for c in CLOCKS:
        there = c in prof.incl
        cols[f"incl_{c}_ns"] = prof.incl[c][rows] if there else None
        cols[f"excl_{c}_ns"] = prof.excl[c][rows] if there else None
    return Table(cols, len(rows))


def _names(values: Iterable[str | None]) -> npt.NDArray[np.object_]:
    """Names as an object array of `str` (undecodable bytes as `\\xNN`; None stays None)."""
    items = [None if v is None else visible(v) for v in values]
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def _cat(parts: Sequence[npt.NDArray[Any]], dtype: type[np.generic]) -> npt.NDArray[Any]:
    return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype=dtype)
