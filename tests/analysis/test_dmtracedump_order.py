"""dmtracedump's report orders (`analysis/dmtracedump/order.py`, numpy lexsorts over name
ranks) equal the oracle's Python sorts on tuple keys (tests/support/legacy_order_oracle.py):
every index, section order, class and method-name group and parent/child list, on profiles
with duplicate names under several ids, name-less entries, absent entries and tied times."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from support import legacy_order_oracle as oracle
from traceview.analysis.dmtracedump.numbers import LegacyProfile
from traceview.analysis.dmtracedump.order import legacy_order

WORDS = [b"a", b"b", b"ab", b"B", b"a\xff", b""]


@st.composite
def profiles(draw: Any) -> LegacyProfile:
    k = draw(st.integers(0, 12))
    n = k + 2
    ids = [-2, -1, *draw(st.lists(st.integers(0, 60), min_size=k, max_size=k, unique=True))]
    classes = [b"(toplevel)", b"(unknown)"]
    names: list[bytes | None] = [None, None]
    sigs = [b"", b""]
    for _ in range(k):
        classes.append(draw(st.sampled_from(WORDS[:4])))
        names.append(draw(st.none() | st.sampled_from(WORDS[:5])))
        sigs.append(draw(st.sampled_from(WORDS)))

    def column() -> np.ndarray:
        return np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), np.int64)

    present = np.array([True, draw(st.booleans()), *(draw(st.booleans()) for _ in range(k))])
    edge = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.booleans(), st.booleans())
    keys = draw(st.lists(edge, unique=True))
    keys.sort(key=lambda e: ((e[0] * n + e[1]) * 2 + e[2]) * 2 + e[3])
    m = len(keys)
    times = draw(st.lists(st.integers(0, 3), min_size=m, max_size=m))
    calls = draw(st.lists(st.integers(1, 3), min_size=m, max_size=m))
    return LegacyProfile(
        clock="cpu",
        policy="dmtracedump",
        total=10,
        class_name=classes,
        name=names,
        signature=sigs,
        ids=ids,
        present=present,
        excl=column(),
        top=column(),
        incl=column(),
        calls=column(),
        recursive=column(),
        edge_parent=np.array([e[0] for e in keys], dtype=np.int64),
        edge_child=np.array([e[1] for e in keys], dtype=np.int64),
        edge_parent_recursive=np.array([e[2] for e in keys], dtype=bool),
        edge_child_recursive=np.array([e[3] for e in keys], dtype=bool),
        edge_time=np.array(times, dtype=np.int64),
        edge_calls=np.array(calls, dtype=np.int64),
    )


def groups(gs: list[Any]) -> list[tuple[Any, ...]]:
    return [(g.title, g.excl, g.calls, g.recursive, g.entries) for g in gs]


def relatives(rows: list[Any]) -> list[tuple[int, int, int]]:
    return [(r.entry, r.time, r.calls) for r in rows]


@settings(max_examples=400, deadline=None)
@given(profiles())
def test_orders_equal_the_oracle(lp: LegacyProfile) -> None:
    got, want = legacy_order(lp), oracle.legacy_order(lp)
    assert got.index == want.index
    assert got.by_excl == want.by_excl and got.by_incl == want.by_incl
    assert groups(got.classes) == groups(want.classes)
    assert groups(got.names) == groups(want.names)
    for e in range(len(lp)):
        for rec in (False, True):
            assert relatives(got.parents_of(e, rec)) == relatives(want.parents_of(e, rec))
            assert relatives(got.children_of(e, rec)) == relatives(want.children_of(e, rec))
