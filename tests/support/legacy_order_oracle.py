"""Test oracle: dmtracedump's report orders replayed with Python's `sorted` on tuple keys,
as `analysis/dmtracedump/order.py` computed them before it became numpy lexsorts
(tests/analysis/test_dmtracedump_order.py checks both give the same orders).

dmtracedump sorts one array of methods again and again with glibc's `qsort` (a stable merge
sort), so methods its comparators call equal (same class, name and signature under two ids)
keep the order the previous sort left. `legacy_order(lp)` replays the same sequence of stable
sorts from the same start (methods by id, the two pseudo-methods first), with the same
byte-wise (`strcmp`) tie-breaks, so every index and every line comes out in dmtracedump's
order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from traceview.analysis.dmtracedump.numbers import LegacyProfile
from traceview.analysis.dmtracedump.order import Group, Relative

Key = Callable[[int], Any]


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

    parents: dict[tuple[int, bool], list[Relative]]
    children: dict[tuple[int, bool], list[Relative]]

    def parents_of(self, e: int, recursive: bool) -> list[Relative]:
        """dmtracedump's `parents[recursive]` of entry e (callers recorded while e is / is
        not nested in itself), by decreasing time."""
        return self.parents.get((e, recursive), [])

    def children_of(self, e: int, recursive: bool) -> list[Relative]:
        """dmtracedump's `children[recursive]` of entry e (callees of e's frames that are /
        are not themselves recursive), by decreasing time."""
        return self.children.get((e, recursive), [])


def _relatives(
    lp: LegacyProfile, owner: list[int], rec: list[bool], other: list[int]
) -> dict[tuple[int, bool], list[Relative]]:
    """Edges summed per (owner, recursion bit, other end), each list by decreasing time."""
    sums: dict[tuple[int, bool], dict[int, list[int]]] = {}
    times, calls = lp.edge_time.tolist(), lp.edge_calls.tolist()
    for o, r, w, t, c in zip(owner, rec, other, times, calls, strict=True):
        acc = sums.setdefault((o, r), {}).setdefault(w, [0, 0])
        acc[0] += t
        acc[1] += c
    out = {}
    for key, rows in sums.items():
        lst = [Relative(w, t, c) for w, (t, c) in rows.items()]
        lst.sort(key=lambda x: (-x.time, *_name_key(lp, x.entry)))
        out[key] = lst
    return out


def _name_key(lp: LegacyProfile, e: int) -> tuple[Any, ...]:
    """dmtracedump's tie-break: class, then (name, signature), or the id for a
    pseudo-method (byte order, like strcmp)."""
    name = lp.name[e]
    if name is None:
        return (lp.class_name[e], 0, lp.ids[e], b"")
    return (lp.class_name[e], 1, name, lp.signature[e])


def legacy_order(lp: LegacyProfile) -> LegacyOrder:
    """Replay dmtracedump's sorts (see the module docstring)."""
    start = [e for e in sorted(range(len(lp)), key=lambda e: lp.ids[e]) if lp.present[e]]
    excl, incl = lp.excl.tolist(), lp.incl.tolist()

    def by_incl(e: int) -> tuple[Any, ...]:
        return (-incl[e], *_name_key(lp, e))

    def by_excl(e: int) -> tuple[Any, ...]:
        return (-excl[e], *_name_key(lp, e))

    ranked = sorted(start, key=by_incl)
    index = {e: i for i, e in enumerate(ranked)}
    excl_order = sorted(ranked, key=by_excl)
    incl_order = sorted(excl_order, key=by_incl)
    by_class = sorted(incl_order, key=lambda e: (lp.class_name[e], lp.ids[e]))
    classes = _groups(lp, by_class, lambda e: lp.class_name[e], by_excl, excl)
    classes.sort(key=lambda g: (-g.excl, g.title, lp.ids[g.entries[0]]))

    def method_key(e: int) -> tuple[Any, ...]:
        name = lp.name[e]
        if name is None:
            return (0, lp.class_name[e], b"", lp.ids[e])
        return (1, name, lp.class_name[e], lp.ids[e])

    by_name = sorted(by_class, key=method_key)
    names = _groups(lp, by_name, lambda e: lp.name[e] or b"", by_excl, excl)
    names.sort(key=lambda g: (-g.excl, lp.class_name[g.entries[0]], lp.ids[g.entries[0]]))
    parent, child = lp.edge_parent.tolist(), lp.edge_child.tolist()
    prec, crec = lp.edge_parent_recursive.tolist(), lp.edge_child_recursive.tolist()
    return LegacyOrder(
        index,
        excl_order,
        incl_order,
        classes,
        names,
        parents=_relatives(lp, child, crec, parent),
        children=_relatives(lp, parent, prec, child),
    )


def _groups(
    lp: LegacyProfile, order: list[int], title: Key, sort_key: Key, excl: list[int]
) -> list[Group]:
    """Consecutive runs of equal `title` among the named methods of `order`."""
    runs: list[tuple[bytes, list[int]]] = []
    for e in order:
        if lp.name[e] is None:
            continue
        t = title(e)
        if runs and runs[-1][0] == t:
            runs[-1][1].append(e)
        else:
            runs.append((t, [e]))
    calls, rec = lp.calls.tolist(), lp.recursive.tolist()
    out = []
    for t, members in runs:
        members.sort(key=sort_key)
        out.append(
            Group(
                t,
                sum(excl[e] for e in members),
                sum(calls[e] for e in members),
                sum(rec[e] for e in members),
                members,
            )
        )
    return out
