"""The `tree-json` format: the merged top-down call tree of the selection as nested JSON naming
the threads it covers (docs/json.md), written node by node."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import IO, Any

import numpy as np

from traceview.analysis.calltree import CallTree
from traceview.analysis.view import View
from traceview.exporters.jsonshape import diagnostics_json, dumps, selection_json
from traceview.exporters.tree import covered
from traceview.model import MethodTable, visible

NAME = "tree-json"
SUFFIXES: tuple[str, ...] = ()
BINARY = False
SUBJECT = "view"


@dataclass(frozen=True)
class Options:
    """`max_depth`: the deepest level written (0 = the roots; default all)."""

    max_depth: int | None = None


def export(view: View, out: IO[Any], options: Options) -> None:
    """Nested JSON `{threads, clock, estimates, selection, roots: [{method, ..., children}]}`,
    written node by node (no recursion, so a 70 000-deep chain is fine)."""
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
