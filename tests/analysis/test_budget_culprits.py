"""Frame culprits (layout/budget.py `culprits`, `paths`): for each slow frame call, the method
with the most self time in its subtree and the call path down to its heaviest call, checked
against a walk over the calls one by one."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import numpy.typing as npt

from traceview.analysis.calls import CallTable, build_calls
from traceview.analysis.layout.budget import culprits, frame_calls, paths
from traceview.synth import generate


def _by_hand(calls: CallTable, excl: npt.NDArray[np.int64], top: int) -> tuple[int, int, list[int]]:
    """(heaviest call of the top self-time method, that method's self ns, path) one by one."""
    end = int(calls.subtree_end[top])
    per: dict[int, int] = defaultdict(int)
    for r in range(top, end):
        per[int(calls.method[r])] += int(excl[r])
    best = min(per, key=lambda m: (-per[m], m))
    leaf = max((r for r in range(top, end) if calls.method[r] == best), key=lambda r: (excl[r], -r))
    path = []
    cur = leaf
    while cur != top:
        path.append(cur)
        cur = int(calls.parent[cur])
    return leaf, per[best], path[::-1]


def test_culprits_match_a_walk() -> None:
    trace = generate(records=20_000, threads=3, seed=4)
    calls = build_calls(trace)
    for clock in ("wall", "cpu"):
        excl = calls.excl(clock)
        for thread in range(len(trace.threads)):
            rows = frame_calls(calls, thread, 0, clock).rows[:200]
            leaf, own = culprits(calls, rows, clock)
            got = paths(calls, rows, leaf)
            for i, r in enumerate(rows.tolist()):
                want_leaf, want_own, want_path = _by_hand(calls, excl, r)
                assert (int(leaf[i]), int(own[i]), got[i]) == (want_leaf, want_own, want_path)


def test_a_leaf_frame_is_its_own_culprit() -> None:
    trace = generate(records=2_000, threads=1, seed=1)
    calls = build_calls(trace)
    leaves = np.flatnonzero(calls.subtree_end == np.arange(len(calls)) + 1)[:5].astype(np.int64)
    leaf, _ = culprits(calls, leaves, "wall")
    assert leaf.tolist() == leaves.tolist()
    assert paths(calls, leaves, leaf) == [[] for _ in leaves]
