"""`traceview stats TRACE [--thread NAME|ID ...] [--clock cpu|wall] [--sort COLUMN]
[--limit N] [--json]`: per-method statistics on both clocks, as a table or JSON."""

from __future__ import annotations

import argparse
import json
import sys

from traceview.analysis.calls import build_calls
from traceview.analysis.profile import profile
from traceview.cli.threadarg import UnknownThread, thread_rows
from traceview.exporters.text import COLUMNS, method_rows, sort_rows, stats_table
from traceview.exporters.text import thread_rows as thread_json
from traceview.readers import load


def main(argv: list[str]) -> int:
    """Print the statistics of one trace; 2 on an unknown thread or clock."""
    parser = argparse.ArgumentParser(prog="traceview stats", description=__doc__)
    parser.add_argument("trace", help="the .trace file")
    parser.add_argument("--thread", action="append", help="thread name or id (repeatable)")
    parser.add_argument("--clock", choices=("cpu", "wall"), help="sort by this clock")
    parser.add_argument("--sort", choices=sorted(COLUMNS), help="column to sort by")
    parser.add_argument("--limit", type=int, help="show at most N methods")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    trace = load(args.trace)
    try:
        threads = thread_rows(trace, args.thread)
    except UnknownThread as exc:
        print(f"traceview stats: no thread named {exc.args[0]!r}", file=sys.stderr)
        return 2
    if args.clock and args.clock not in trace.clocks:
        print(f"traceview stats: this trace has no {args.clock} clock", file=sys.stderr)
        return 2
    calls = build_calls(trace)
    prof = profile(calls, threads=threads)
    rows = method_rows(prof)
    sort = args.sort or (f"incl-{args.clock}" if args.clock else None)
    if sort:
        rows = sort_rows(rows, sort)
    if args.limit is not None:
        rows = rows[: max(args.limit, 0)]
    if args.json:
        doc = {
            "file": trace.source,
            "clocks": list(prof.clocks),
            "threads": thread_json(prof),
            "methods": rows,
            "estimates": prof.estimates,
            "diagnostics": [d.to_json() for d in [*trace.diagnostics, *calls.diagnostics]],
        }
        json.dump(doc, sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    from rich.console import Console

    title = f"{len(rows)} methods" + (" (sampled: estimates)" if prof.estimates else "")
    console = Console() if sys.stdout.isatty() else Console(width=200)
    console.print(stats_table(rows, title, console.width))
    for d in [*trace.diagnostics, *calls.diagnostics]:
        print(f"note: {d.code}" + (f" ({d.count})" if d.count is not None else ""))
    return 0
