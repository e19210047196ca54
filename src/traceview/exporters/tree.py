"""The `tree` format: the merged top-down call tree of the selection as indented text, one line
per node (`exporters/tree_json.py` writes the same tree as nested JSON)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Any

import numpy as np

from traceview.analysis.calltree import CallTree
from traceview.analysis.view import View
from traceview.exporters.notes import note_lines
from traceview.model import MethodTable, printable

NAME = "tree"
SUFFIXES: tuple[str, ...] = ()
BINARY = False
SUBJECT = "view"


@dataclass(frozen=True)
class Options:
    """`max_depth`: the deepest level shown (0 = the roots; default all)."""

    max_depth: int | None = None


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


def export(view: View, out: IO[Any], options: Options) -> None:
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
