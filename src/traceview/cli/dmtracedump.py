"""`traceview dmtracedump` (also the `dmtracedump` console script): Debian's dmtracedump
with its options and output, on every trace variant the readers know.

`[-ho] [-s URL] [-d OTHER] [-g OUTFILE] [-k] [-t PERCENT] TRACE` as dmtracedump takes them
(`-h` is HTML; `--help` prints this help), plus the shared selection (`--thread`, `--clock`,
`--from`/`--to`, `--my-code`) and `--policy`: `dmtracedump` (default) reproduces its
handling of unbalanced stacks, `traceview` uses the engine's (docs/engine.md). The default
clock is dmtracedump's, the first time field of each record (thread CPU when the trace has
it). `-g` writes DOT and renders it with Graphviz `dot` (PNG, SVG or PDF by the suffix;
`.dot` writes the DOT itself). `TRACEVIEW_TIMINGS=1` prints the phases on stderr.

Each output is a registered format (`dmtracedump`, `dmtracedump-html`, `dmtracedump-events`,
`dot`, and for `-d` the pair formats `dmtracedump-diff`, `dmtracedump-diff-html`) built with
its own options: `--policy` where the format takes it (refused with `-o`, whose dump has no
stack policy); `-s` and `-t` go to the formats reading them and are otherwise accepted and
unused, as dmtracedump accepts them.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from traceview.analysis.dmtracedump.numbers import report_clock
from traceview.analysis.query import CLOCKS
from traceview.analysis.view import View
from traceview.cli import options
from traceview.cli.memory import reuse_freed_memory
from traceview.cli.options import CliError
from traceview.cli.parser import Parser
from traceview.cli.streamed import open_streamed, whole_trace
from traceview.exporters import Format, Pair, get

FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}
FLAGS = {"policy": "--policy", "script_url": "-s", "threshold": "-t"}
LENIENT = ("script_url", "threshold")  # dmtracedump's getopt takes them in any combination


def parser() -> argparse.ArgumentParser:
    """dmtracedump's options (getopt `d:hg:kos:t:`) and ours."""
    p = Parser(
        prog="dmtracedump",
        add_help=False,
        description="dmtracedump's profile reports of a method trace",
    )
    options.add_trace(p)
    p.add_argument("--help", action="help", help="show this help and exit")
    p.add_argument("-h", dest="html", action="store_true", help="HTML output")
    p.add_argument("-o", dest="events", action="store_true", help="dump the records instead")
    p.add_argument("-s", dest="script_url", metavar="URL", help="URL base of sortable.js")
    p.add_argument("-d", dest="other", metavar="TRACE", help="compare with this trace (Run 1)")
    p.add_argument("-g", dest="graph", metavar="OUTFILE", help="write the call graph here")
    p.add_argument("-k", dest="keep", action="store_true", help="keep OUTFILE.dot with -g")
    p.add_argument("-t", dest="threshold", type=int, metavar="PERCENT", help="graph threshold")
    p.add_argument(
        "--policy",
        choices=("dmtracedump", "traceview"),
        help="unbalanced stacks as dmtracedump handles them (default) or as traceview does",
    )
    options.add_selection(p)
    return p


def _view(path: str, args: argparse.Namespace) -> View:
    # the report reads one clock (dmtracedump's rule): drop the other's times, unless a range
    # needs the wall clock to be placed on (its default timeline)
    ranged = args.start is not None or args.stop is not None
    only = None if ranged else report_clock(CLOCKS, args.clock)
    session = None
    if whole_trace(args) and not args.events:  # its records need not be kept (cli/streamed.py)
        session = open_streamed(path, args, (only,) if only else None, args.policy != "traceview")
    if session is None:
        session = options.open_trace(path, args, only_clock=only)
    try:
        clock = report_clock(session.clocks, args.clock)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    words = replace(options.ask(args, session), clock=clock)
    return View(session, options.resolve(session, words))


def main(argv: list[str]) -> int:
    """Print the report (or the dump, or the diff); write the graph; 0 on success."""
    args = parser().parse_args(argv)
    timings = os.environ.get("TRACEVIEW_TIMINGS") == "1"
    marks = [("start", time.perf_counter(), time.process_time())]
    if args.events:
        fmt = get("dmtracedump-events")
    elif args.other is not None:
        fmt = get("dmtracedump-diff-html" if args.html else "dmtracedump-diff")
    else:
        fmt = get("dmtracedump-html" if args.html else "dmtracedump")
    opts = _options(fmt, args)
    graph = get("dot") if args.graph is not None and args.other is None else None
    graph_opts = _options(graph, args) if graph is not None else None
    view = _view(args.trace, args)
    marks.append(("load", time.perf_counter(), time.process_time()))
    reuse_freed_memory()  # as `traceview -r`: each thread's temporaries reuse the last's
    for note in _notes(view, args.policy):  # computes the statistics the report prints
        print(f"dmtracedump: note: {note}", file=sys.stderr)
    marks.append(("analysis", time.perf_counter(), time.process_time()))
    if args.other is not None:
        options.write(fmt, Pair(_view(args.other, args), view), None, opts)
    else:
        options.write(fmt, view, None, opts)
        sys.stdout.flush()
        marks.append(("output", time.perf_counter(), time.process_time()))
        if graph is not None:
            _graph(graph, view, args.graph, args.keep, graph_opts)
    sys.stdout.flush()
    marks.append(("end", time.perf_counter(), time.process_time()))
    if timings:
        steps = " ".join(
            f"{name}={wall - marks[i][1]:.3f}s/{cpu - marks[i][2]:.3f}cpu"
            for i, (name, wall, cpu) in enumerate(marks[1:])
        )
        print(f"timings: {steps} total={marks[-1][1] - marks[0][1]:.3f}s", file=sys.stderr)
    return 0


def _options(fmt: Format, args: argparse.Namespace) -> Any:
    """`fmt`'s options from the flags given; `--policy` refused where it does not apply."""
    flags = {k: v for k, v in FLAGS.items() if k not in LENIENT or k in fmt.flags()}
    return options.format_options("dmtracedump", fmt, args, flags)


def _notes(view: View, policy: str | None) -> list[str]:
    from traceview.analysis.dmtracedump.numbers import legacy_profile

    return legacy_profile(view.session, view.query, policy or "dmtracedump").notes


def _graph(graph: Format, view: View, target: str, keep: bool, opts: Any) -> None:
    """Write the call graph: DOT for a .dot/.gv name, else rendered by Graphviz `dot`."""
    import shutil
    import subprocess
    import tempfile

    path = Path(target)
    suffix = path.suffix.lower()
    if suffix in (".dot", ".gv"):
        options.write(graph, view, target, opts)
        return
    fmt = FORMATS.get(suffix, "png")
    dot = shutil.which("dot")
    if dot is None:
        raise CliError("-g needs Graphviz's `dot` on PATH (e.g. apt-get install graphviz)")
    if keep:
        dot_path = Path(f"{target}.dot")
        options.write(graph, view, str(dot_path), opts)
    else:
        fd, name = tempfile.mkstemp(suffix=".dot")
        os.close(fd)
        dot_path = Path(name)
        options.write(graph, view, name, opts)
    try:
        run = subprocess.run(
            [dot, f"-T{fmt}", "-o", str(path), str(dot_path)], capture_output=True, text=True
        )
    finally:
        if not keep:
            dot_path.unlink(missing_ok=True)
    if run.returncode != 0:
        first = (run.stderr.strip().splitlines() or ["failed"])[0]
        raise CliError(f"dot could not render {target}: {first}")


def run() -> None:
    """Console-script entry point (`dmtracedump ...`)."""
    from traceview.cli import leave
    from traceview.cli import main as cli_main

    leave(cli_main(["dmtracedump", *sys.argv[1:]]))
