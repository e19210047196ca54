"""The selection as flat tables — calls, methods, threads, edges and the profile — for the
Python API, `traceview sql` and Parquet: one definition of every column, built from a `View`.

Pure numpy (no pyarrow, no pandas): each builder returns a `Table` (api/table.py)
whose columns are int64 ns, int32 rows, bools, or object arrays of names (undecodable bytes
as `\\xNN`, `model.visible`). A clock the trace does not record is a None column. Every
number comes from the session's views, so the tables agree with `stats`, the viewer and the
exporters: a time range clips each call exactly as `Session.profile` does, and Σ `excl_*_ns`
of a method's calls is its exclusive time in the profile. Times are ns from the trace's start:
the session's origin on the timeline clock, the least time of the other clock. The tables of
edges and profiles (per method, per thread and method) are in `api/aggregates.py`, the
traces table in `api/traces.py`.

Column reference: docs/tables.md; the types of the written tables: `api/schema.py` (`LAYOUT`
is bumped when one changes).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import numpy.typing as npt

from traceview.analysis import filters
from traceview.analysis.calls import RECURSIVE, CallTable
from traceview.analysis.query import CLOCKS
from traceview.analysis.ranges import clipped_spans
from traceview.analysis.session import Session
from traceview.analysis.view import View
from traceview.api.aggregates import edges_table, parts, profile_table, thread_profile_table
from traceview.api.keys import keys_of
from traceview.api.schema import LAYOUT
from traceview.api.table import Column, Table, names_array

SQL_TABLES = ("calls", "methods", "threads", "edges", "profile")  # built from a view
I64 = npt.NDArray[np.int64]


def tables(view: View) -> dict[str, Table]:
    """The tables of one selection written as Parquet (but `traces`, api/traces.py), by
    name; `profile` is per thread and method."""
    return {"calls": calls_table(view), **tables_except_calls(view)}


def tables_except_calls(view: View) -> dict[str, Table]:
    """The small tables (one row per method, thread, edge or thread and method): what a writer
    can build while other threads build and write the calls table."""
    return {
        "methods": methods_table(view),
        "threads": threads_table(view),
        "edges": edges_table(view),
        "profile": thread_profile_table(view),
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
    build = CallsBuilder(view)
    yield from build.pieces(0, len(build), rows)


class CallsBuilder:
    """The calls table of a view by row ranges: what every piece shares (the selection's
    calls, their exclusive times, the clocks' origins) is computed once, then `piece(lo, hi)`
    builds rows [lo, hi) — on any thread, so writers build and encode several ranges at
    once."""

    def __init__(self, view: View) -> None:
        calls, start, end = selected_calls(view)
        self.calls, self.start, self.end = calls, start, end
        clocks = [c for c in CLOCKS if c in calls.clocks]
        # exclusive times need every child of a call: computed over the whole table, once
        self.excl = {
            c: calls.excl(c, incl=None if start is None or end is None else end[c] - start[c])
            for c in clocks
        }
        self.zero = origins(view.session)
        self.firsts = calls.thread_ranges[:, 0].astype(np.int64)

    def __len__(self) -> int:
        return len(self.calls)

    def pieces(self, lo: int, hi: int, rows: int | None = None) -> Iterator[Table]:
        """Rows [lo, hi) in consecutive pieces of at most `rows` rows (at least one)."""
        step = max(rows or hi - lo, 1)
        for a in range(lo, max(hi, lo + 1), step):
            yield self.piece(a, min(hi, a + step))

    def piece(self, lo: int, hi: int) -> Table:
        """Rows [lo, hi) of the calls table."""
        calls, start, end, excl, zero = self.calls, self.start, self.end, self.excl, self.zero
        sl = slice(lo, hi)
        thread = calls.thread[sl].astype(np.int32)
        first = self.firsts[thread]
        # rows within their thread: each column a new array, shifted in place (a root's -1
        # parent kept)
        call = np.arange(lo, hi, dtype=np.int64)
        call -= first
        parent = calls.parent[sl].astype(np.int64)
        np.subtract(parent, first, out=parent, where=parent >= 0)
        subtree_end = calls.subtree_end[sl].astype(np.int64)
        subtree_end -= first
        cols: dict[str, Column] = {
            "thread": thread,
            "call": call,
            "parent": parent,
            "depth": calls.depth[sl].astype(np.int32),
            "method": calls.method[sl].astype(np.int32),
            "subtree_end": subtree_end,
            "recursive": (calls.flags[sl] & RECURSIVE).astype(bool),
            "flags": calls.flags[sl].astype(np.int32),
        }
        for c in CLOCKS:
            if c not in excl:
                for k in ("start", "end", "incl", "excl"):
                    cols[f"{k}_{c}_ns"] = None
                continue
            if start is None or end is None:  # gathered: new arrays, shifted in place
                s, e = calls.start(c, sl), calls.end(c, sl)
                incl = e - s
                s -= zero[c]
                e -= zero[c]
            else:
                s, e = start[c][sl], end[c][sl]
                incl = e - s
                s, e = s - zero[c], e - zero[c]
            cols[f"start_{c}_ns"] = s
            cols[f"end_{c}_ns"] = e
            cols[f"incl_{c}_ns"] = incl
            cols[f"excl_{c}_ns"] = excl[c][sl]
        return Table(cols, hi - lo)


def methods_table(view: View) -> Table:
    """One row per method of the trace, named as the query shows them (renamed when it
    renames): `method` (row), `method_key` (api/keys.py), `id` (int64: an `ArtMethod*` past
    2**63 reads negative), `class_name`, `name`, `signature`, `source_file`, `line`, `label`
    (traceview's `class.name signature`), `declared`."""
    m = view.methods
    n = len(m)
    class_name, name, signature = (
        names_array(m.class_name),
        names_array(m.name),
        names_array(m.signature),
    )
    return Table(
        {
            "method": np.arange(n, dtype=np.int32),
            "method_key": keys_of(view),
            "id": m.id.astype(np.uint64).view(np.int64),  # ids past 2**63 read negative
            "class_name": class_name,
            "name": name,
            "signature": signature,
            "source_file": names_array(m.source_file),
            "line": m.line.astype(np.int32),
            "label": names_array(m.label(i) for i in range(n)),
            "declared": m.declared.astype(bool),
        },
        n,
    )


def threads_table(view: View) -> Table:
    """One row per thread of the trace: `thread` (row), `id`, `name` (None when unnamed),
    `label`, `main` (the session's main thread), `selected`, and in the selection its
    `calls` and `total_*_ns` (traceview's 100 %: last - first time, clipped to the range) —
    the profile's, read from the per-thread parts the edges and profile tables share
    (`aggregates.parts`) rather than from a second pass over the calls."""
    th = view.trace.threads
    n = len(th)
    q = view.query
    selected = np.zeros(n, dtype=bool)
    selected[list(range(n)) if q.threads is None else list(q.threads)] = True
    # as the profile: a selected thread without calls counts nothing, whatever its span
    ranges = view.session.filtered(q).thread_ranges
    busy = selected & (ranges[:, 1] > ranges[:, 0])
    found = [p for p in parts(view) if busy[p.thread]]
    rows = np.array([p.thread for p in found], dtype=np.int64)
    n_calls = np.zeros(n, dtype=np.int64)
    n_calls[rows] = [p.n_calls for p in found]
    main = np.zeros(n, dtype=bool)
    if n:
        main[view.session.main_thread()] = True
    cols: dict[str, Column] = {
        "thread": np.arange(n, dtype=np.int32),
        "id": th.id.astype(np.int64),
        "name": names_array(th.name),
        "label": names_array(th.label(i) for i in range(n)),
        "main": main,
        "selected": selected,
        "calls": n_calls,
    }
    for c in CLOCKS:
        if c in view.session.clocks:
            total = np.zeros(n, dtype=np.int64)
            total[rows] = [p.totals[c] for p in found]
            cols[f"total_{c}_ns"] = total
        else:
            cols[f"total_{c}_ns"] = None
    return Table(cols, n)


__all__ = [
    "LAYOUT",
    "SQL_TABLES",
    "CallsBuilder",
    "calls_batches",
    "calls_table",
    "edges_table",
    "methods_table",
    "origins",
    "profile_table",
    "selected_calls",
    "tables",
    "tables_except_calls",
    "thread_profile_table",
    "threads_table",
]
