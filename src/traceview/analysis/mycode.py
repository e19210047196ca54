"""The "my code" filter: keep the calls of classes under some package prefixes, fold the rest.

`keep_packages(calls, prefixes)` returns a `CallTable` holding only the calls whose class
starts with one of the prefixes; every other call folds into its nearest kept caller (its
time becomes that caller's exclusive time, its kept callees become that caller's children).
Calls with no kept caller fold into the thread's top level. The result is an ordinary call
table (pre-order, contiguous subtrees, same event rows), so the profile, the call tree, the
flame graph and the timeline work on it unchanged. Its `keep_calls` (any mask) and
`select_rows` (rows holding their ancestors, cheaply) also cut the viewer's time windows;
both re-link with `select.relink` / `select.rows_table`.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from traceview.analysis.calls import CallTable
from traceview.analysis.filters import relink, rows_table
from traceview.model import MethodTable


def parse_prefixes(text: str | Iterable[str] | None) -> tuple[str, ...]:
    """Normalise `com.a,org/b/` style prefixes: dotted, stripped, empty ones dropped, sorted."""
    if text is None:
        return ()
    parts = text.split(",") if isinstance(text, str) else list(text)
    out = {p.strip().replace("/", ".").strip(".") for p in parts}
    return tuple(sorted(p for p in out if p))


def method_mask(methods: MethodTable, prefixes: Iterable[str]) -> npt.NDArray[np.bool_]:
    """True for the method rows whose class is `prefix` or inside `prefix.` for some prefix.

    Dalvik's slash form (`Lcom/a/B;` or `com/a/B`) is compared in dotted form.
    """
    pre = parse_prefixes(prefixes)
    out = np.zeros(len(methods), dtype=bool)
    if not pre:
        return out
    for row, cls in enumerate(methods.class_name):  # one pass over methods, not calls
        name = cls.replace("/", ".")
        if name.startswith("L") and name.endswith(";"):
            name = name[1:-1]
        out[row] = any(name == p or name.startswith(p + ".") for p in pre)
    return out


def keep_packages(calls: CallTable, prefixes: Iterable[str]) -> CallTable:
    """The calls of classes under `prefixes`, every other call folded into its kept caller."""
    keep = method_mask(calls.trace.methods, prefixes)[calls.method]
    return keep_calls(calls, keep)


def keep_calls(calls: CallTable, keep: npt.NDArray[np.bool_]) -> CallTable:
    """The rows where `keep` is True, re-linked to their nearest kept ancestors."""
    n = len(calls)
    # pointer jumping: after k rounds `up` skips up to 2**k unkept ancestors
    up = calls.parent.astype(np.int64)
    while True:
        has = up >= 0
        bad = np.zeros(n, dtype=bool)
        bad[has] = ~keep[up[has]]
        if not bad.any():
            break
        up[bad] = up[up[bad]]  # every skipped ancestor is unkept (invariant)
    kept = np.flatnonzero(keep)
    return relink(calls, keep, kept, up[kept])


def select_rows(calls: CallTable, rows: npt.NDArray[np.integer]) -> CallTable:
    """The calls at `rows` (sorted, and holding every ancestor of each row) as a call table.

    Cheaper than `keep_calls` (no ancestor search): used to cut a time window out of a big
    table before profiling it.
    """
    rows = np.asarray(rows, dtype=np.int64)
    par = calls.parent[rows].astype(np.int64)
    new_parent = np.where(par >= 0, _rank(rows, np.maximum(par, 0)), -1)
    new_end = _rank(rows, calls.subtree_end[rows].astype(np.int64))
    ranges = np.searchsorted(rows, calls.thread_ranges, side="left").astype(np.int64)
    return rows_table(calls, rows, new_parent, new_end, calls.depth[rows], ranges)


def _rank(rows: npt.NDArray[np.integer], x: npt.NDArray[np.integer]) -> npt.NDArray[np.int64]:
    """`np.searchsorted(rows, x)` (left) for sorted distinct `rows`, searched among the starts
    of their contiguous runs: a time window is a few runs, so the search stays in cache."""
    if not len(rows):
        return np.zeros(len(x), dtype=np.int64)
    first = np.flatnonzero(np.diff(rows) != 1) + 1
    first = np.concatenate((np.zeros(1, dtype=np.int64), first))
    run_start = rows[first]
    run_len = np.diff(np.append(first, len(rows)))
    k = np.searchsorted(run_start, x, side="right") - 1
    kk = np.maximum(k, 0)
    out = first[kk] + np.minimum(x - run_start[kk], run_len[kk])
    return np.where(k >= 0, out, 0)
