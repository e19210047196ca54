"""The aggregate tables of a selection: caller -> callee `edges` per thread, the `profile`
per thread and method (what Parquet and SQL hold) and the merged profile per method (the
Python API's `Selection.profile()`).

The edges and the per-thread profile come from one pass over the calls, the session's
thread parts (`analysis.profile.thread_parts`, kept in the session's memo so the two
tables share it); the per-thread profile applies the profile's rules to each thread's edges
(exclusive = Σ inclusive of the method's calls − Σ inclusive of their callees; inclusive
and calls over non-recursive calls only), so summed over threads it is `Session.profile`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.parts import ThreadPart, sum_by
from traceview.analysis.profile import thread_parts
from traceview.analysis.query import CLOCKS
from traceview.analysis.view import View
from traceview.api.keys import keys_of
from traceview.api.table import Column, Table, names_array

I64 = npt.NDArray[np.int64]


def parts(view: View) -> list[ThreadPart]:
    """The selected threads' statistics (edges, calls and totals), computed once per session
    and query; a thread without edges is among them (its totals are the threads table's)."""
    session, q = view.session, view.query

    def build() -> list[ThreadPart]:
        tr = q.time_range
        found = thread_parts(
            session.selection(q),
            q.threads,
            None,
            (tr.lo, tr.hi) if tr is not None else None,
            tr.clock if tr is not None else None,
        )
        return found

    return session.memo("table-parts", q, build)


def edges_table(view: View) -> Table:
    """Caller -> callee aggregates per thread, as `Session.profile` counts them: `thread`,
    `caller` (method row, -1 for (toplevel)), `callee`, `caller_recursive`,
    `callee_recursive`, `calls` and per clock `incl_*_ns` (the callee's inclusive time through
    the edge); per thread by caller, caller_recursive, callee, callee_recursive. Summed over
    threads they are the profile's `edges`."""
    ps = parts(view)
    thread = [np.full(len(p.edges), p.thread, dtype=np.int32) for p in ps]
    cols: dict[str, Column] = {
        "thread": _cat(thread, np.int32),
        "caller": _cat([p.edges.parent for p in ps], np.int32),
        "callee": _cat([p.edges.child for p in ps], np.int32),
        "caller_recursive": _cat([p.edges.parent_recursive for p in ps], np.bool_),
        "callee_recursive": _cat([p.edges.child_recursive for p in ps], np.bool_),
        "calls": _cat([p.edges.calls for p in ps], np.int64),
    }
    for c in CLOCKS:
        cols[f"incl_{c}_ns"] = (
            _cat([p.edges.incl[c] for p in ps], np.int64) if c in view.session.clocks else None
        )
    return Table(cols)


def thread_profile_table(view: View) -> Table:
    """traceview's statistics per thread and method called in it, by thread then method row:
    `thread`, `method`, `method_key`, `calls` (non-recursive), `recursive_calls`, then per
    clock `incl_*_ns` (non-recursive calls) and `excl_*_ns` (all calls), clipped to the
    range."""
    edges = edges_table(view)
    n_methods = max(len(view.trace.methods), 1)
    thread = _col(edges, "thread")
    child_rec = _col(edges, "callee_recursive")
    caller = _col(edges, "caller")
    # (thread, method) as one sortable key; rows are the pairs called
    callee_at = thread.astype(np.int64) * n_methods + _col(edges, "callee")
    rows = np.unique(callee_at)
    at = np.searchsorted(rows, callee_at)
    outer = ~child_rec
    has_caller = caller >= 0
    # a caller was itself called in its thread, so its pair is a row
    caller_at = np.searchsorted(
        rows, thread[has_caller].astype(np.int64) * n_methods + caller[has_caller]
    )
    calls = _col(edges, "calls")
    method = (rows % n_methods).astype(np.int32)
    cols: dict[str, Column] = {
        "thread": (rows // n_methods).astype(np.int32),
        "method": method,
        "method_key": keys_of(view)[method],
        "calls": sum_by(at[outer], calls[outer], len(rows)),
        "recursive_calls": sum_by(at[child_rec], calls[child_rec], len(rows)),
    }
    for c in CLOCKS:
        w = edges[f"incl_{c}_ns"]
        if w is None:
            cols[f"incl_{c}_ns"] = cols[f"excl_{c}_ns"] = None
            continue
        cols[f"incl_{c}_ns"] = sum_by(at[outer], w[outer], len(rows))
        below = sum_by(caller_at, w[has_caller], len(rows))
        cols[f"excl_{c}_ns"] = sum_by(at, w, len(rows)) - below
    return Table(cols, len(rows))


def profile_table(view: View) -> Table:
    """traceview's statistics of the selection, one row per method called, by decreasing
    inclusive time on the query's clock: `method`, `method_key`, `label`, `class_name`,
    `name`, `calls`, `recursive_calls`, then per clock `incl_*_ns`, `excl_*_ns`."""
    prof = view.profile()
    m = view.methods
    rows = prof.used(view.query.clock) if prof.clocks else np.zeros(0, dtype=np.intp)
    class_name = names_array(m.class_name[int(i)] for i in rows)
    name = names_array(m.name[int(i)] for i in rows)
    cols: dict[str, Column] = {
        "method": rows.astype(np.int32),
        "method_key": keys_of(view)[rows],
        "label": names_array(m.label(int(i)) for i in rows),
        "class_name": class_name,
        "name": name,
        "calls": prof.calls[rows],
        "recursive_calls": prof.recursive_calls[rows],
    }
    for c in CLOCKS:
        there = c in prof.incl
        cols[f"incl_{c}_ns"] = prof.incl[c][rows] if there else None
        cols[f"excl_{c}_ns"] = prof.excl[c][rows] if there else None
    return Table(cols, len(rows))


def _col(table: Table, name: str) -> npt.NDArray[Any]:
    col = table[name]
    assert col is not None
    return col


def _cat(arrays: Sequence[npt.NDArray[Any]], dtype: type[np.generic]) -> npt.NDArray[Any]:
    return np.concatenate(arrays).astype(dtype) if arrays else np.zeros(0, dtype=dtype)


__all__ = ["edges_table", "parts", "profile_table", "thread_profile_table"]
