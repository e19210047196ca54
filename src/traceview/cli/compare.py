"""`traceview compare BASE... --vs NEW... [SELECTION] [THRESHOLDS]`: open the viewer in
compare mode: the Diff tab (every method with its change and significance), the differential
flame graph, and both sides' timelines one above the other (docs/diff.md, "In the viewer").

Each side is one run or many (all count in the numbers; the first of each draws its
timeline). Every run is opened through the one open path and kept in memory while the viewer
runs. The selection (thread names, clock, "my code", a mapping per build) is the user's
words, resolved against every run of both sides; the viewer changes it per request.
"""

from __future__ import annotations

import argparse

from traceview.analysis.session import Session
from traceview.cli import options
from traceview.cli.diff import add_thresholds, thresholds
from traceview.cli.memory import release_freed_memory
from traceview.cli.parser import Parser
from traceview.cli.view import allowed_hosts, bind, load_with_progress, run
from traceview.model import printable
from traceview.viewer.app import create_app
from traceview.viewer.comparing import Sides


def parser() -> argparse.ArgumentParser:
    """The argument parser of `traceview compare`."""
    p = Parser(
        prog="traceview compare",
        description="Compare runs in the local web viewer (the Diff tab, the differential "
        "flame graph, both timelines).",
    )
    p.add_argument("baseline", nargs="+", metavar="BASE", help="baseline runs (traces)")
    p.add_argument("--vs", nargs="+", required=True, metavar="NEW", help="candidate runs (traces)")
    options.add_loading(p)
    options.add_mapping(p)
    p.add_argument(
        "--vs-mapping",
        metavar="FILE",
        help="the candidates' mapping.txt when their build differs (default: --mapping)",
    )
    add_thresholds(p)
    options.add_listening(p, 0, "default: a free one")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    return p


def main(argv: list[str]) -> int:
    """Run the compare viewer until Ctrl-C; 0 on a clean stop."""
    args = parser().parse_args(argv)
    limits = thresholds(args)
    release_freed_memory()
    base = [load_with_progress(path, args) for path in args.baseline]
    cand = [load_with_progress(path, args) for path in args.vs]
    if set(base[0].clocks).isdisjoint(cand[0].clocks):
        raise options.CliError("the two sides share no clock: they cannot be compared")
    rename = options.rename(args.mapping, base[0])
    rename_cand = options.rename(args.vs_mapping, cand[0]) if args.vs_mapping else None
    sides = Sides(tuple(base), tuple(cand), limits, rename, rename_cand)
    sock = bind(args.host, args.port)
    app = create_app(
        base[0],
        allowed_hosts=allowed_hosts(args.host, args.allow_host),
        rename=rename,
        sides=sides,
    )
    for what, paths, runs in (("baseline", args.baseline, base), ("candidate", args.vs, cand)):
        print(f"traceview: {what}: {_runs(paths, runs)}", flush=True)
    run(app, sock, args)
    return 0


def _runs(paths: list[str], runs: list[Session]) -> str:
    calls = sum(len(s.calls) for s in runs)
    return f"{', '.join(printable(p) for p in paths)} ({len(runs)} run(s), {calls} calls)"
