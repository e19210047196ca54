"""`traceview export TRACE -o OUT [--format F]`: the selection in a format other tools read.

The format is `--format`, or guessed from OUT's suffix (`.folded`, `.svg`, `.json` for Chrome's
Trace Event format, `.speedscope.json`, `.pb.gz`, `.parquet`). `-o -` writes to stdout.
Values are on the selection's clock (`--clock`), clipped to `--from`/`--to`; formats that can
carry both clocks carry both. Parquet writes a directory (OUT) of the tables `traceview
sql` queries (docs/tables.md).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from traceview.analysis.view import View
from traceview.cli import options
from traceview.cli.options import CliError
from traceview.cli.parser import Parser
from traceview.exporters import Exporter, Options, for_path, get

# the interchange formats (docs/formats.md); every other registered format is accepted too
FORMATS = ("folded", "svg", "chrome", "speedscope", "pprof", "parquet")


def parser() -> argparse.ArgumentParser:
    """The argument parser of `traceview export`."""
    p = Parser(
        prog="traceview export",
        description="Write the selection as folded stacks, an SVG flame graph, Chrome trace "
        "events, a speedscope profile, a pprof profile or Parquet tables.",
    )
    options.add_trace(p)
    options.add_output(p, json=False)
    p.add_argument(
        "-f",
        "--format",
        metavar="FORMAT",
        help=f"one of {', '.join(FORMATS)} (default: from the output's suffix)",
    )
    p.add_argument(
        "--merge-threads",
        action="store_true",
        help="one tree for all selected threads (folded, svg, speedscope, pprof); default: "
        "one per thread",
    )
    p.add_argument("--title", help="title of the SVG flame graph")
    options.add_selection(p)
    return p


def pick(fmt: str | None, target: str | None) -> Exporter[Any]:
    """The exporter `fmt` names, or the one OUT's suffix implies."""
    if fmt is not None:
        try:
            return get(fmt)
        except KeyError as exc:
            raise CliError(str(exc.args[0])) from None
    if target in (None, "-"):
        raise CliError("writing to stdout needs --format (" + ", ".join(FORMATS) + ")")
    found = for_path(target, FORMATS) or for_path(target)
    if found is None:
        raise CliError(
            f"cannot tell the format from {target!r}: give --format ({', '.join(FORMATS)})"
        )
    return found


def main(argv: list[str]) -> int:
    """Write the export; 0 on success."""
    args = parser().parse_args(argv)
    if args.output is None:
        raise CliError("give the output with -o FILE (- for stdout)")
    exporter = pick(args.format, args.output)
    session = options.open_trace(args.trace)
    view = View(session, options.query(args, session))
    opts = Options(title=args.title, merge_threads=args.merge_threads)
    if exporter.name == "parquet":
        from traceview.exporters import parquet

        if args.output == "-":
            raise CliError("parquet writes a directory: give -o DIR")
        try:
            parquet.write_directory(view, args.output)
        except ImportError as exc:
            raise CliError(str(exc)) from None
    else:
        options.write(exporter, view, args.output, opts)
    if args.output != "-":
        print(f"traceview: wrote {args.output} ({exporter.name})", file=sys.stderr)
    return 0
