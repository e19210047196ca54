"""`traceview dmtracedump` (also the `dmtracedump` console script): Debian's dmtracedump
with its options and output, on every trace variant the readers know.

`[-ho] [-s URL] [-d OTHER] [-g OUTFILE] [-k] [-t PERCENT] TRACE` as dmtracedump takes them
(`-h` is HTML; `--help` prints this help), plus the shared selection (`--thread`, `--clock`,
`--from`/`--to`, `--my-code`) and `--policy`: `dmtracedump` (default) reproduces its
handling of unbalanced stacks, `traceview` uses the engine's (docs/engine.md). The default
clock is dmtracedump's, the first time field of each record (thread CPU when the trace has
it). `-g` writes DOT and renders it with Graphviz `dot` (PNG, SVG or PDF by the suffix;
`.dot` writes the DOT itself). `TRACEVIEW_TIMINGS=1` prints the phases on stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from traceview.analysis.view import View
from traceview.cli import options
from traceview.cli.memory import reuse_freed_memory
from traceview.cli.options import CliError
from traceview.cli.parser import Parser
from traceview.exporters import Options, get

FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}


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
    p.add_argument("-s", dest="sortable", metavar="URL", help="URL base of sortable.js")
    p.add_argument("-d", dest="other", metavar="TRACE", help="compare with this trace (Run 1)")
    p.add_argument("-g", dest="graph", metavar="OUTFILE", help="write the call graph here")
    p.add_argument("-k", dest="keep", action="store_true", help="keep OUTFILE.dot with -g")
    p.add_argument(
        "-t", dest="threshold", type=int, default=-1, metavar="PERCENT", help="graph threshold"
    )
    p.add_argument(
        "--policy",
        choices=("dmtracedump", "traceview"),
        default="dmtracedump",
        help="unbalanced stacks as dmtracedump handles them (default) or as traceview does",
    )
    options.add_selection(p)
    return p


def _view(path: str, args: argparse.Namespace) -> View:
    # the report reads one clock: drop the other's times, unless a range needs the wall
    # clock to be placed on (its default timeline)
    ranged = args.start is not None or args.stop is not None
    session = options.open_trace(path, args, only_clock=None if ranged else args.clock or "cpu")
    if args.clock is None:  # dmtracedump's clock: the first time field
        args.clock = "cpu" if "cpu" in session.clocks else "wall"
    if args.clock not in session.clocks:
        raise CliError(f"this trace has no {args.clock} clock")
    return View(session, options.query(args, session))


def main(argv: list[str]) -> int:
    """Print the report (or the dump, or the diff); write the graph; 0 on success."""
    args = parser().parse_args(argv)
    timings = os.environ.get("TRACEVIEW_TIMINGS") == "1"
    marks = [("start", time.perf_counter(), time.process_time())]
    clock = args.clock
    view = _view(args.trace, args)
    marks.append(("load", time.perf_counter(), time.process_time()))
    reuse_freed_memory()  # as `traceview -r`: each thread's temporaries reuse the last's
    opts = Options(policy=args.policy, threshold=args.threshold, script_url=args.sortable)
    for note in _notes(view, opts):  # computes the statistics the report prints
        print(f"dmtracedump: note: {note}", file=sys.stderr)
    marks.append(("analysis", time.perf_counter(), time.process_time()))
    if args.events:
        options.write(get("dmtracedump-events"), view, None, opts)
    elif args.other is not None:
        from traceview.exporters.dmtracedump_diff import export_diff

        args.clock = clock
        run1 = _view(args.other, args)
        with options.output(None, binary=True) as out:
            export_diff(run1, view, out, opts, html=args.html)
    else:
        exporter = get("dmtracedump-html" if args.html else "dmtracedump")
        options.write(exporter, view, None, opts)
        sys.stdout.flush()
        marks.append(("output", time.perf_counter(), time.process_time()))
        if args.graph is not None:
            _graph(view, args.graph, args.keep, opts)
    sys.stdout.flush()
    marks.append(("end", time.perf_counter(), time.process_time()))
    if timings:
        steps = " ".join(
            f"{name}={wall - marks[i][1]:.3f}s/{cpu - marks[i][2]:.3f}cpu"
            for i, (name, wall, cpu) in enumerate(marks[1:])
        )
        print(f"timings: {steps} total={marks[-1][1] - marks[0][1]:.3f}s", file=sys.stderr)
    return 0


def _notes(view: View, opts: Options) -> list[str]:
    from traceview.analysis.compat import legacy_profile

    return legacy_profile(view.session, view.query, opts.policy or "dmtracedump").notes


def _graph(view: View, target: str, keep: bool, opts: Options) -> None:
    """Write the call graph: DOT for a .dot/.gv name, else rendered by Graphviz `dot`."""
    import shutil
    import subprocess
    import tempfile

    path = Path(target)
    suffix = path.suffix.lower()
    if suffix in (".dot", ".gv"):
        options.write(get("dot"), view, target, opts)
        return
    fmt = FORMATS.get(suffix, "png")
    dot = shutil.which("dot")
    if dot is None:
        raise CliError("-g needs Graphviz's `dot` on PATH (e.g. apt-get install graphviz)")
    if keep:
        dot_path = Path(f"{target}.dot")
        options.write(get("dot"), view, str(dot_path), opts)
    else:
        fd, name = tempfile.mkstemp(suffix=".dot")
        os.close(fd)
        dot_path = Path(name)
        options.write(get("dot"), view, name, opts)
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
    from traceview.cli import main as cli_main

    sys.exit(cli_main(["dmtracedump", *sys.argv[1:]]))
