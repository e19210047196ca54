"""The `dot` format, dmtracedump's `-g` call graph as Graphviz DOT: one record node per method
reached from `(toplevel)` through non-recursive callers, labelled
`[index] class.method (inclusive ms, exclusive ms, calls)`, an edge from caller to callee
when the callee's inclusive time is at least `threshold` percent (default 20) of the
caller's (format.md d.3).

The same walk as dmtracedump (labels depth-first from `(toplevel)`, then links, each node
expanded once); callees are visited by decreasing edge time, where dmtracedump follows the
order its lists were built in. Names go through `model.printable` and DOT's record escaping,
so no name can end a label or add fields. `cli/dmtracedump.py` renders the file with `dot`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

from traceview.analysis.dmtracedump.numbers import TOPLEVEL, LegacyProfile
from traceview.analysis.dmtracedump.order import LegacyOrder
from traceview.analysis.view import View
from traceview.exporters.dmtracedump import Policy, compute
from traceview.model import printable

NAME = "dot"
SUFFIXES = (".dot", ".gv")
BINARY = False
SUBJECT = "view"
DEFAULT_THRESHOLD = 20
_RECORD_SPECIAL = str.maketrans({c: "\\" + c for c in '\\"{}|<> '})


@dataclass(frozen=True)
class Options:
    """`policy`: unbalanced stacks as dmtracedump handles them or as traceview does;
    `threshold`: the percentage of its caller's inclusive time an edge needs (`-t`; None,
    below 0 or from 100 up: 20)."""

    policy: Policy = "dmtracedump"
    threshold: int | None = None


def threshold_of(value: int | None) -> int:
    """dmtracedump's rule: a value below 0 or from 100 up means the default, 20."""
    if value is None or value < 0 or value >= 100:
        return DEFAULT_THRESHOLD
    return value


def _label_text(lp: LegacyProfile, e: int) -> str:
    cls = printable(lp.class_name[e].decode("utf-8", "surrogateescape"))
    name = lp.name[e]
    meth = printable(name.decode("utf-8", "surrogateescape")) if name is not None else "(null)"
    return f"{cls}.{meth}".translate(_RECORD_SPECIAL)


def _passes(lp: LegacyProfile, parent: int, child: int, threshold: int) -> bool:
    parent_time = int(lp.incl[parent])
    if parent_time <= 0:
        return False  # dmtracedump's int cast of inf/NaN is INT64_MIN: never kept
    return int(int(lp.incl[child]) / parent_time * 100.0) >= threshold


def _children(order: LegacyOrder, e: int) -> list[int]:
    return [r.entry for r in order.children_of(e, False)]


def walk(
    lp: LegacyProfile, order: LegacyOrder, threshold: int
) -> tuple[list[int], list[tuple[int, int]]]:
    """The labelled nodes (depth-first pre-order from `(toplevel)`) and the edges."""
    seen = {TOPLEVEL}
    # labels: depth-first, a child is labelled when first met and over the threshold
    nodes = [TOPLEVEL]
    frames: list[tuple[int, Iterator[int]]] = [(TOPLEVEL, iter(_children(order, TOPLEVEL)))]
    while frames:
        parent, it = frames[-1]
        child = next(it, None)
        if child is None:
            frames.pop()
            continue
        if child not in seen and _passes(lp, parent, child, threshold):
            seen.add(child)
            nodes.append(child)
            frames.append((child, iter(_children(order, child))))
    # links: every kept edge of every node reached, each node expanded once
    edges: list[tuple[int, int]] = []
    expanded = {TOPLEVEL}
    frames = [(TOPLEVEL, iter(_children(order, TOPLEVEL)))]
    while frames:
        parent, it = frames[-1]
        child = next(it, None)
        if child is None:
            frames.pop()
            continue
        if _passes(lp, parent, child, threshold):
            edges.append((parent, child))
            if child not in expanded:
                expanded.add(child)
                frames.append((child, iter(_children(order, child))))
    return nodes, edges


def export(view: View, out: IO[str], options: Options) -> None:
    """The call graph of the view as DOT text."""
    lp, order = compute(view, options.policy)
    nodes, edges = walk(lp, order, threshold_of(options.threshold))
    index = order.index
    out.write("digraph g {\nnode [shape = record,height=.1];\n")
    for e in nodes:
        out.write(
            f'node{index[e]}[label = "[{index[e]}] {_label_text(lp, e)} '
            f'({int(lp.incl[e]) // 1000}, {int(lp.excl[e]) // 1000}, {int(lp.calls[e])})"]\n'
        )
    for parent, child in edges:
        out.write(f"node{index[parent]} -> node{index[child]}\n")
    out.write("}\n")
