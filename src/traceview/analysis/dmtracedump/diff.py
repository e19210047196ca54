"""dmtracedump's two-trace comparison (`-d`, format.md d.3): methods of two `LegacyProfile`s
matched by name, signature and class, with the differences it prints.

"Run 1" is the `-d` trace, "Run 2" the other. Each side's methods are taken in its
inclusive ranking; each Run 1 method takes the first unmatched Run 2 method with the same
name, signature and class (pseudo-methods: same class and id). Differences are Run 2 - Run 1
and the "percentage" is Run 2 / Run 1 x 100, both only when Run 1's value is positive (else
0), as dmtracedump computes them; rows are sorted by decreasing difference, ties kept in
matching order (glibc's stable qsort).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from traceview.analysis.dmtracedump.numbers import LegacyProfile
from traceview.analysis.dmtracedump.order import LegacyOrder


@dataclass(frozen=True)
class Match:
    """One method found in both runs: its entries and the two differences."""

    run1: int
    run2: int
    diff_excl: int
    pct_excl: float
    diff_incl: int
    pct_incl: float


@dataclass(frozen=True)
class LegacyDiff:
    """Matches by decreasing exclusive and by decreasing inclusive difference, and each
    run's unmatched entries (in its inclusive ranking)."""

    by_excl: list[Match]
    by_incl: list[Match]
    only1: list[int]
    only2: list[int]


def _key(lp: LegacyProfile, e: int) -> tuple[Any, ...]:
    name = lp.name[e]
    if name is None:
        return (0, lp.class_name[e], lp.ids[e])
    return (1, name, lp.signature[e], lp.class_name[e])


def _ranked(order: LegacyOrder) -> list[int]:
    return sorted(order.index, key=order.index.__getitem__)


def legacy_diff(
    lp1: LegacyProfile, order1: LegacyOrder, lp2: LegacyProfile, order2: LegacyOrder
) -> LegacyDiff:
    """Match Run 1 (`lp1`) against Run 2 (`lp2`) as dmtracedump does."""
    ranked1, ranked2 = _ranked(order1), _ranked(order2)
    pool: dict[tuple[Any, ...], deque[int]] = {}
    for e in ranked2:
        pool.setdefault(_key(lp2, e), deque()).append(e)
    matches: list[Match] = []
    only1: list[int] = []
    taken: set[int] = set()
    x1, x2 = lp1.excl.tolist(), lp2.excl.tolist()
    i1, i2 = lp1.incl.tolist(), lp2.incl.tolist()
    for e in ranked1:
        queue = pool.get(_key(lp1, e))
        if not queue:
            only1.append(e)
            continue
        f = queue.popleft()
        taken.add(f)
        de, pe = (x2[f] - x1[e], x2[f] / x1[e] * 100.0) if x1[e] > 0 else (0, 0.0)
        di, pi = (i2[f] - i1[e], i2[f] / i1[e] * 100.0) if i1[e] > 0 else (0, 0.0)
        matches.append(Match(e, f, de, pe, di, pi))
    only2 = [e for e in ranked2 if e not in taken]
    by_excl = sorted(matches, key=lambda m: -m.diff_excl)
    by_incl = sorted(by_excl, key=lambda m: -m.diff_incl)  # dmtracedump re-sorts in place
    return LegacyDiff(by_excl, by_incl, only1, only2)
