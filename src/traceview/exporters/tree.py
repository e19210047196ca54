"""The `tree` exporters: the merged top-down call tree of the selection, as indented text
(`TEXT`) or as nested JSON naming the threads it covers (`JSON`, docs/json.md)."""

from __future__ import annotations

from typing import IO, Any

import numpy as np

from traceview.analysis.calltree import CallTree
from traceview.analysis.view import View
from traceview.exporters import Exporter, Options
from traceview.exporters.jsonshape import diagnostics_json, selection_json
from traceview.exporters.notes import note_lines
from traceview.model import MethodTable, printable, visible


def tree_lines(
    tree: CallTree, methods: MethodTable, max_depth: int | None = None, timeless: bool = False
) -> list[str]:
    """One line per node of a merged top-down tree: indent, inclusive/exclusive on each
    clock (µs; blank for a trace without times), calls, method label."""
    clocks = tree.clocks
    out = []
    head = "  ".join(f"{'incl ' + c + ' us':>14} {'excl ' + c + ' us':>14}" for c in clocks)
    out.append(f"{head} {'calls':>9}  method")
    keep = np.ones(len(tree), dtype=bool) if max_depth is None else tree.depth <= max_depth
    idx = np.flatnonzero(keep)
    incl = {c: tree.incl[c][idx].tolist() for c in clocks}
    excl = {c: tree.excl[c][idx].tolist() for c in clocks}
    count = tree.calls[idx].tolist()
    depth = tree.depth[idx].tolist()
    method = tree.method[idx].tolist()
    for k in range(len(idx)):
        times = "  ".join(
            f"{'':>14} {'':>14}"
            if timeless
            else f"{incl[c][k] / 1000:>14,.3f} {excl[c][k] / 1000:>14,.3f}"
            for c in clocks
        )
        name = "(toplevel)" if method[k] < 0 else printable(methods.label(method[k]))
        out.append(f"{times} {count[k]:>9}  {'  ' * depth[k]}{name}")
    return out


def covered(view: View) -> list[int]:
    """The thread rows the view's tree covers."""
    q = view.query
    return list(range(len(view.trace.threads))) if q.threads is None else list(q.threads)


def export_text(view: View, out: IO[Any], options: Options) -> None:
    """Indented text: a header naming the threads, then one line per node."""
    th = view.trace.threads
    rows = covered(view)
    names = ", ".join(f"{printable(th.label(t))} [{int(th.id[t])}]" for t in rows[:8])
    more = f" and {len(rows) - 8} more" if len(rows) > 8 else ""
    note = " (sampled trace: times are estimates)" if view.trace.header.sampled else ""
    if view.session.timeless:
        note = " (order of events: this file has no times)"
    label = "thread" if len(rows) == 1 else "threads"
    out.write(f"{label} {names}{more}{note}\n")
    lines = tree_lines(view.top_down(), view.methods, options.max_depth, view.session.timeless)
    out.write("\n".join(lines) + "\n")
    out.write(note_lines(view.diagnostics()))


def export_json(view: View, out: IO[Any], options: Options) -> None:
    """Nested JSON `{threads, clock, estimates, selection, roots: [{method, ..., children}]}`,
    written node by node (no recursion, so a 70 000-deep chain is fine)."""
    from traceview.exporters.jsonshape import dumps

    tree = view.top_down()
    th = view.trace.threads
    head = {
        "threads": [
            {"row": t, "id": int(th.id[t]), "name": visible(th.label(t))} for t in covered(view)
        ],
        "clock": view.query.clock,
        "estimates": bool(view.trace.header.sampled),
        "selection": selection_json(view),
        "diagnostics": diagnostics_json(view.diagnostics()),
    }
    text = dumps(head)
    out.write(text[: text.rstrip().rindex("}")].rstrip() + ',\n "roots": [')
    _write_nodes(tree, view.methods, out, options.max_depth, view.session.timeless)
    out.write("]\n}\n")


def _write_nodes(
    tree: CallTree, methods: MethodTable, out: IO[Any], max_depth: int | None, timeless: bool
) -> None:
    import json

    depth = tree.depth
    keep = np.flatnonzero(depth <= max_depth) if max_depth is not None else np.arange(len(tree))
    clocks = tree.clocks
    open_depth = -1
    for i in keep.tolist():
        d = int(depth[i])
        closed = open_depth >= d
        while open_depth >= d:  # close the nodes this one is not inside
            out.write("]}")
            open_depth -= 1
        if closed:  # the last node closed was this one's previous sibling
            out.write(",")
        m = int(tree.method[i])
        node: dict[str, Any] = {"method": visible(methods.label(m))}
        if methods.obfuscated is not None and m >= 0 and methods.obfuscated[m]:
            node["obfuscated"] = visible(methods.obfuscated[m])
        node["calls"] = int(tree.calls[i])
        for c in clocks:  # no times: null, never the call counts the axis holds
            node[f"incl_{c}_us"] = None if timeless else int(tree.incl[c][i]) / 1000
            node[f"excl_{c}_us"] = None if timeless else int(tree.excl[c][i]) / 1000
        text = json.dumps(node, ensure_ascii=False)
        out.write(text[:-1] + ', "children": [')
        open_depth = d
    while open_depth >= 0:
        out.write("]}")
        open_depth -= 1


TEXT = Exporter("tree", (), False, "top-down call tree as indented text", export_text)
JSON = Exporter("tree-json", (), False, "top-down call tree as nested JSON", export_json)
