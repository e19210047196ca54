"""Property tests: the merged top-down and bottom-up trees (`analysis.calltree`) equal the
slow reference built from tests/oracle.py's calls, node by node, on generated traces."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from support.engine_checks import SETTINGS, traces
from support.oracle import oracle, oracle_bottom_up, oracle_top_down
from traceview.analysis.calls import build_calls
from traceview.analysis.calltree import CallTree, bottom_up, top_down
from traceview.model import Trace


def tree_paths(tree: CallTree) -> dict[tuple[int, ...], Any]:
    """Check the node order (pre-order, siblings by decreasing inclusive on the first clock,
    ties by method row) and return path from the root -> [calls, incl, excl]."""
    paths: list[tuple[int, ...]] = []
    out: dict[tuple[int, ...], Any] = {}
    first = tree.clocks[0]
    last_child: dict[int, int] = {}
    for i in range(len(tree)):
        p = int(tree.parent[i])
        assert p < i
        m = int(tree.method[i])
        if p < 0:
            assert tree.depth[i] == 0
            paths.append((m,))
        else:
            assert tree.depth[i] == tree.depth[p] + 1
            inside = all(paths[j][: len(paths[p])] == paths[p] for j in range(p + 1, i))
            assert inside, "pre-order: a subtree is contiguous"
            paths.append((*paths[p], m))
        if p in last_child:  # the previous sibling sorts first
            s = last_child[p]
            assert (-tree.incl[first][s], int(tree.method[s])) < (-tree.incl[first][i], m)
        last_child[p] = i
        assert paths[i] not in out, "each path once"
        out[paths[i]] = [
            int(tree.calls[i]),
            {c: int(v[i]) for c, v in tree.incl.items()},
            {c: int(v[i]) for c, v in tree.excl.items()},
        ]
    return out


def check_trees(trace: Trace, threads: list[int] | None, max_depth: int) -> None:
    trace.validate()
    o = oracle(trace)
    calls = build_calls(trace)
    got = tree_paths(top_down(calls, threads))
    want = oracle_top_down(o, threads)
    assert got == {k: [n, dict(i), dict(e)] for k, (n, i, e) in want.items()}
    got = tree_paths(bottom_up(calls, threads, max_depth=max_depth))
    want = oracle_bottom_up(o, threads, max_depth)
    assert got == {k: [n, dict(x), dict(x)] for k, (n, x) in want.items()}


@settings(SETTINGS, max_examples=80)
@given(traces(messy=True), st.sampled_from([64, 3, 0]), st.booleans())
def test_oracle_trees(trace: Trace, max_depth: int, some: bool) -> None:
    threads = list(range(0, len(trace.threads), 2)) if some else None
    check_trees(trace, threads, max_depth)
