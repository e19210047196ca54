"""The orders of dmtracedump's report sections, from a `LegacyProfile` (analysis.compat).

dmtracedump sorts one array of methods again and again with glibc's `qsort` (a stable merge
sort), so methods its comparators call equal (same class, name and signature under two ids)
keep the order the previous sort left. `legacy_order(lp)` replays the same sequence of stable
sorts from the same start (methods by id, the two pseudo-methods first), with the same
byte-wise (`strcmp`) tie-breaks, so every index and every line comes out in dmtracedump's
order. Each sort is one stable numpy `lexsort` over integer keys: the names' byte order is
turned into ranks once. The exporters (text, HTML, DOT) only print these orders.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.dmtracedump.numbers import LegacyProfile

I64 = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Group:
    """One class (or one method name): its summed exclusive µs and calls, and its methods'
    entries in printing order."""

    title: bytes
    excl: int
    calls: int
    recursive: int
    entries: list[int]


@dataclass(frozen=True)
class Relative:
    """One parent or child row of the inclusive section."""

    entry: int
    time: int
    calls: int


@dataclass(frozen=True)
class Relatives:
    """Parent or child rows of every entry: those of entry `e` on the side `recursive` are
    rows `[at[2e + recursive], at[2e + recursive + 1])` of `entry`, `time`, `calls`, by
    decreasing time."""

    at: list[int]
    entry: list[int]
    time: list[int]
    calls: list[int]

    def rows(self, e: int, recursive: bool) -> range:
        """The rows of entry `e` on that side."""
        k = 2 * e + int(recursive)
        return range(self.at[k], self.at[k + 1])


@dataclass(frozen=True)
class LegacyOrder:
    """`index[e]` (the `[n]` printed for entry e), the exclusive section's order, the
    inclusive section's order (its row numbers are positions in it), the class groups and
    the method-name groups (both sorted by decreasing exclusive)."""

    index: dict[int, int]
    by_excl: list[int]
    by_incl: list[int]
    classes: list[Group]
    names: list[Group]

    parents: Relatives
    children: Relatives

    def parents_of(self, e: int, recursive: bool) -> list[Relative]:
        """dmtracedump's `parents[recursive]` of entry e (callers recorded while e is / is
        not nested in itself), by decreasing time."""
        return _listed(self.parents, e, recursive)

    def children_of(self, e: int, recursive: bool) -> list[Relative]:
        """dmtracedump's `children[recursive]` of entry e (callees of e's frames that are /
        are not themselves recursive), by decreasing time."""
        return _listed(self.children, e, recursive)


def _listed(side: Relatives, e: int, recursive: bool) -> list[Relative]:
    return [Relative(side.entry[i], side.time[i], side.calls[i]) for i in side.rows(e, recursive)]


def ranks(values: list[Any]) -> I64:
    """Each value's rank in the sorted distinct values (Python's order: bytes as strcmp)."""
    pos = {v: i for i, v in enumerate(sorted(set(values)))}
    return np.array([pos[v] for v in values], dtype=np.int64)


def stable(order: I64, *keys: I64) -> I64:
    """`order` (entries) sorted stably by `keys` (per entry; the first the most significant)."""
    if not len(order):
        return order
    return order[np.lexsort([k[order] for k in reversed(keys)])]


def legacy_order(lp: LegacyProfile) -> LegacyOrder:
    """Replay dmtracedump's sorts (see the module docstring)."""
    n = len(lp)
    ids = np.asarray(lp.ids, dtype=np.int64)
    named = np.array([name is not None for name in lp.name], dtype=np.int64)
    cls = ranks(lp.class_name)
    name = ranks([x or b"" for x in lp.name])
    # dmtracedump's tie-break: class, then (name, signature), or the id for a pseudo-method
    tie = (cls, named, np.where(named == 1, name, ids), named * ranks(lp.signature))
    incl, excl = -np.asarray(lp.incl, dtype=np.int64), -np.asarray(lp.excl, dtype=np.int64)
    start = np.argsort(ids, kind="stable")
    start = start[lp.present[start]].astype(np.int64)
    ranked = stable(start, incl, *tie)
    excl_order = stable(ranked, excl, *tie)
    incl_order = stable(excl_order, incl, *tie)
    by_class = stable(incl_order, cls, ids)
    classes = _groups(lp, by_class, (cls, lp.class_name), (excl, *tie))
    classes = [classes[g] for g in stable(_at(classes), *_group_keys(classes, cls, ids))]
    # by method name: a pseudo-method by (class, id), a named one by (name, class, id)
    by_name = stable(by_class, named, np.where(named == 1, name, cls), named * cls, ids)
    names = _groups(lp, by_name, (name, [x or b"" for x in lp.name]), (excl, *tie))
    names = [names[g] for g in stable(_at(names), *_group_keys(names, cls, ids))]
    edges = (lp.edge_parent, lp.edge_child)
    recs = (lp.edge_parent_recursive, lp.edge_child_recursive)
    return LegacyOrder(
        {e: i for i, e in enumerate(ranked.tolist())},
        excl_order.tolist(),
        incl_order.tolist(),
        classes,
        names,
        parents=_relatives(lp, edges[1], recs[1], edges[0], tie, n),
        children=_relatives(lp, edges[0], recs[0], edges[1], tie, n),
    )


def _at(groups: list[Group]) -> I64:
    return np.arange(len(groups), dtype=np.int64)


def _group_keys(groups: list[Group], cls: I64, ids: I64) -> tuple[I64, ...]:
    """Groups by decreasing exclusive, then their first entry's class, then its id."""
    first = np.array([g.entries[0] for g in groups], dtype=np.int64)
    return -np.array([g.excl for g in groups], dtype=np.int64), cls[first], ids[first]


def _groups(
    lp: LegacyProfile, order: I64, title: tuple[I64, list[bytes]], by: tuple[I64, ...]
) -> list[Group]:
    """Consecutive runs of equal title (its rank and its bytes per entry) among the named
    methods of `order`, each run's members sorted stably by `by`."""
    rank, text = title
    named = np.array([x is not None for x in lp.name], dtype=bool)
    kept = order[named[order]]
    if not len(kept):
        return []
    t = rank[kept]
    run = np.concatenate(([0], np.cumsum(t[1:] != t[:-1])))
    run_of = np.zeros(len(lp), dtype=np.int64)
    run_of[kept] = run
    members = stable(kept, run_of, *by)  # runs keep their order, each sorted by `by`
    starts = np.flatnonzero(np.concatenate(([True], run[1:] != run[:-1])))
    sums = [
        np.add.reduceat(np.asarray(a, dtype=np.int64)[members], starts).tolist()
        for a in (lp.excl, lp.calls, lp.recursive)
    ]
    bounds = [*starts.tolist(), len(members)]
    rows = members.tolist()
    return [
        Group(text[rows[a]], x, c, r, rows[a:b])
        for a, b, x, c, r in zip(bounds[:-1], bounds[1:], *sums, strict=True)
    ]


def _relatives(
    lp: LegacyProfile, owner: I64, rec: Any, other: I64, tie: tuple[I64, ...], n: int
) -> Relatives:
    """Edges summed per (owner, recursion bit, other end), each owner's side by decreasing
    time (ties by the other end's names, then the order the edges first named it)."""
    side = 2 * np.asarray(owner, dtype=np.int64) + np.asarray(rec, dtype=np.int64)
    key = side * n + np.asarray(other, dtype=np.int64)
    uniq, first, inv = np.unique(key, return_index=True, return_inverse=True)
    time = np.zeros(len(uniq), dtype=np.int64)
    calls = np.zeros(len(uniq), dtype=np.int64)
    np.add.at(time, inv, np.asarray(lp.edge_time, dtype=np.int64))
    np.add.at(calls, inv, np.asarray(lp.edge_calls, dtype=np.int64))
    u_side, u_other = uniq // n, uniq % n
    rows = np.argsort(first, kind="stable")  # as the edges first named each pair
    per = [k[u_other] for k in tie]
    rows = rows[np.lexsort([*(k[rows] for k in reversed(per)), -time[rows], u_side[rows]])]
    at = np.searchsorted(u_side[rows], np.arange(2 * n + 1)).tolist()
    return Relatives(at, u_other[rows].tolist(), time[rows].tolist(), calls[rows].tolist())
