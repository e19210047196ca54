"""`traceview tree TRACE [--thread NAME|ID] [--max-depth N] [--json]`: the merged top-down
call tree of one thread (default: the thread named main, else the busiest), one line per node."""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from traceview.analysis.calls import CallTable, build_calls
from traceview.analysis.calltree import top_down
from traceview.cli.threadarg import UnknownThread, thread_rows
from traceview.exporters.text import clean, tree_lines
from traceview.readers import load


def default_thread(calls: CallTable) -> int:
    """The thread named main if it has calls, else the one with the most calls (lowest row
    on ties)."""
    names = calls.trace.threads.name
    sizes = calls.thread_ranges[:, 1] - calls.thread_ranges[:, 0]
    if "main" in names and sizes[names.index("main")] > 0:
        return names.index("main")
    return int(np.argmax(sizes)) if len(sizes) else 0


def main(argv: list[str]) -> int:
    """Print the tree; 2 on an unknown thread."""
    parser = argparse.ArgumentParser(prog="traceview tree", description=__doc__)
    parser.add_argument("trace", help="the .trace file")
    parser.add_argument("--thread", help="thread name or id")
    parser.add_argument("--max-depth", type=int, help="deepest level shown (0 = roots)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    trace = load(args.trace)
    try:
        rows = thread_rows(trace, [args.thread] if args.thread else None)
    except UnknownThread as exc:
        print(f"traceview tree: no thread named {exc.args[0]!r}", file=sys.stderr)
        return 2
    calls = build_calls(trace)
    thread = rows[0] if rows else default_thread(calls)
    tree = top_down(calls, [thread])
    if args.json:
        keep = np.flatnonzero(
            tree.depth <= args.max_depth if args.max_depth is not None else tree.depth >= 0
        )
        methods = trace.methods
        nodes = [
            {
                "parent": int(tree.parent[i]),
                "depth": int(tree.depth[i]),
                "method": methods.label(int(tree.method[i])),
                "calls": int(tree.calls[i]),
                **{f"incl_{c}_us": int(tree.incl[c][i]) / 1000 for c in tree.clocks},
                **{f"excl_{c}_us": int(tree.excl[c][i]) / 1000 for c in tree.clocks},
            }
            for i in keep.tolist()
        ]
        doc = {
            "thread": trace.threads.label(thread),
            "estimates": trace.header.sampled,
            "nodes": nodes,
        }
        json.dump(doc, sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    note = " (sampled trace: times are estimates)" if trace.header.sampled else ""
    print(f"thread {clean(trace.threads.label(thread))}{note}")
    sys.stdout.write("\n".join(tree_lines(tree, args.max_depth)) + "\n")
    return 0
