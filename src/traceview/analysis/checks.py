"""Invariant checks behind `CallTable.validate()` and `Profile.validate()` (tests call them on
every trace they build or load); vectorised, raising AssertionError naming the broken rule."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from traceview.analysis.calls import CallTable
    from traceview.analysis.profile import Profile


def _check(ok: bool, what: str) -> None:
    if not ok:
        raise AssertionError(f"call table invariant broken: {what}")


def check_calls(calls: CallTable) -> None:
    """Indices, pre-order, nesting in time, inclusive >= exclusive >= 0, and per thread
    Σ exclusive + toplevel time = thread total (toplevel time >= 0)."""
    n = len(calls)
    cols = (calls.depth, calls.parent, calls.subtree_end, calls.enter_event, calls.exit_event)
    _check(all(len(c) == n for c in (*cols, calls.flags)), "columns differ in length")
    _check(
        calls.method.dtype in (np.int16, np.int32) and calls.depth.dtype in (np.int16, np.int32),
        "dtypes",
    )
    ranges = calls.thread_ranges
    _check(ranges.shape == (len(calls.trace.threads), 2), "thread_ranges shape")
    if len(ranges):
        _check(int(ranges[0, 0]) == 0 and int(ranges[-1, 1]) == n, "ranges cover the rows")
        _check(bool(np.all(ranges[1:, 0] == ranges[:-1, 1])), "ranges contiguous")
    if n == 0:
        return
    i = np.arange(n, dtype=np.int64)
    thread_end = np.repeat(ranges[:, 1], ranges[:, 1] - ranges[:, 0])
    thread_start = np.repeat(ranges[:, 0], ranges[:, 1] - ranges[:, 0])
    par = calls.parent.astype(np.int64)
    root = par < 0
    _check(bool(np.all(par < i)) and bool(np.all(par >= -1)), "parent < row")
    _check(bool(np.all(par[~root] >= thread_start[~root])), "parent in the same thread")
    _check(bool(np.all((calls.depth == 0) == root)), "depth 0 exactly for roots")
    _check(
        bool(np.all(calls.depth[~root] == calls.depth[par[~root]] + 1)), "depth = parent depth + 1"
    )
    end = calls.subtree_end.astype(np.int64)
    _check(bool(np.all(end > i)) and bool(np.all(end <= thread_end)), "subtree_end range")
    _check(bool(np.all(end[~root] <= end[par[~root]])), "subtree inside the parent's")
    inner = i + 1 < end
    _check(bool(np.all(par[1:][inner[:-1]] == i[:-1][inner[:-1]])), "pre-order: first child")
    after = end < thread_end
    _check(bool(np.all(calls.depth[end[after]] <= calls.depth[after])), "pre-order: subtree end")
    ev = calls.trace.events
    _check(bool(np.all(ev.thread[calls.enter_event] == calls.thread)), "enter event thread")
    _check(bool(np.all(ev.thread[calls.exit_event] == calls.thread)), "exit event thread")
    for clock in calls.clocks:
        start, stop = calls.start(clock), calls.end(clock)
        _check(bool(np.all(stop >= start)), f"{clock}: end >= start")
        _check(bool(np.all(start[~root] >= start[par[~root]])), f"{clock}: child starts inside")
        _check(bool(np.all(stop[~root] <= stop[par[~root]])), f"{clock}: child ends inside")
        incl = stop - start
        excl = calls.excl(clock, incl=incl)
        _check(bool(np.all(excl >= 0)), f"{clock}: exclusive >= 0")
        _check(bool(np.all(incl >= excl)), f"{clock}: inclusive >= exclusive")
        for t in range(len(ranges)):
            lo, hi = int(ranges[t, 0]), int(ranges[t, 1])
            total = calls.thread_total(t, clock)
            roots = lo + np.flatnonzero(root[lo:hi])
            top = total - int(incl[roots].sum())
            _check(top >= 0, f"{clock}: toplevel time >= 0 in thread row {t}")
            _check(int(excl[lo:hi].sum()) + top == total, f"{clock}: Σ exclusive = total")
            if len(roots) > 1:
                _check(bool(np.all(start[roots[1:]] >= stop[roots[:-1]])), "roots overlap")


def check_profile(prof: Profile) -> None:
    """Per clock: Σ exclusive + toplevel = Σ thread totals; inclusive >= top exclusive >= 0;
    exclusive >= 0; each edge's inclusive <= its child's and its parent's inclusive (for
    non-recursive edges)."""
    for clock in prof.clocks:
        excl, incl, top = prof.excl[clock], prof.incl[clock], prof.top_excl[clock]
        total = int(prof.thread_total[clock].sum())
        _check(bool(np.all(excl >= 0)), f"profile {clock}: exclusive >= 0")
        _check(bool(np.all(top >= 0)), f"profile {clock}: top exclusive >= 0")
        _check(bool(np.all(incl >= top)), f"profile {clock}: inclusive >= top exclusive")
        _check(int(excl.sum()) + prof.toplevel[clock] == total, f"profile {clock}: Σ excl")
        _check(prof.toplevel[clock] >= 0, f"profile {clock}: toplevel >= 0")
        e = prof.edges
        plain = ~e.child_recursive
        child_incl = incl[e.child[plain]]
        _check(bool(np.all(e.incl[clock][plain] <= child_incl)), "edge incl <= child incl")
        pp = plain & ~e.parent_recursive & (e.parent >= 0)
        _check(bool(np.all(e.incl[clock][pp] <= incl[e.parent[pp]])), "edge <= parent incl")
        roots = e.parent < 0
        _check(int(e.incl[clock][roots].sum()) <= total, "roots within the total")
    n = prof.calls + prof.recursive_calls
    _check(bool(np.all(prof.calls >= 0)) and bool(np.all(prof.recursive_calls >= 0)), "counts")
    into = np.bincount(prof.edges.child, weights=prof.edges.calls, minlength=len(n))
    _check(bool(np.all(into.astype(np.int64) == n)), "edge calls sum to the method's calls")
