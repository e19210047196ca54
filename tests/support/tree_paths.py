"""A merged tree (`CallTree`) as a dict of root paths, checking its node order on the way."""

from __future__ import annotations

from typing import Any

from traceview.analysis.calltree import CallTree


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
