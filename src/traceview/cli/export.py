"""`traceview export TRACE -o OUT [--format F]`: the selection in a format other tools read.

The format is `--format`, or guessed from OUT's suffix (`.folded`, `.svg`, `.json` for Chrome's
Trace Event format, `.speedscope.json`, `.pb.gz` or `.pb`, `.perfetto-trace`, `.parquet`) by
the registry alone.
`-o -` writes to stdout. Values are on the selection's clock (`--clock`), clipped to
`--from`/`--to`; formats that can carry both clocks carry both. Parquet writes a directory
(OUT) of the tables `traceview sql` queries (docs/tables.md). The trace is opened through the
one open path (`--max-size`, `--salvage`), and each format takes only its own flags: a flag
the format does not take is refused.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from traceview.analysis.view import View
from traceview.cli import options
from traceview.cli.options import CliError
from traceview.cli.parser import Parser
from traceview.exporters import REGISTRY, Format, for_path, get, names

# the interchange formats (docs/formats.md), preferred when a suffix is shared (`.json`);
# every other format of one trace is accepted too
FORMATS = ("folded", "svg", "chrome", "speedscope", "pprof", "perfetto", "parquet")
ONE_TRACE = names("view", "directory")
# the format options this command offers: option name -> flag
FLAGS = {
    "merge_threads": "--merge-threads",
    "title": "--title",
    "icicle": "--icicle",
    "merge_into": "--merge-into",
}


def listing() -> str:
    """The formats of one trace with their suffixes, from the registry (imports none)."""
    lines = ["formats (--format, or guessed from these suffixes):"]
    for name in ONE_TRACE:
        _, suffixes, _, _, description = REGISTRY[name]
        lines.append(f"  {name:<19} {' '.join(suffixes) or '(no suffix)'}")
        lines.append(f"  {'':<19} {description}")
    return "\n".join(lines)


def parser() -> argparse.ArgumentParser:
    """The argument parser of `traceview export`."""
    p = Parser(
        prog="traceview export",
        description="Write the selection as folded stacks, an SVG flame graph, Chrome trace "
        "events, a speedscope profile, a pprof profile, a Perfetto trace or Parquet tables.",
        epilog=listing(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    options.add_trace(p)
    options.add_output(p, json=False)
    p.add_argument(
        "-f",
        "--format",
        metavar="FORMAT",
        help=f"one of {', '.join(FORMATS)}, ... (default: from the output's suffix)",
    )
    g = p.add_argument_group("format options (each format takes its own)")
    g.add_argument(
        "--merge-threads",
        action="store_true",
        default=None,
        help="one tree for all selected threads (folded, svg, pprof); default: one per thread",
    )
    g.add_argument(
        "--title",
        help="title of the SVG flame graph or speedscope file; Chrome's and Perfetto's process "
        "name",
    )
    g.add_argument(
        "--merge-into",
        metavar="SYSTEM",
        help="perfetto: a Perfetto system trace of the same run, copied to OUT with the method "
        "tracks appended (they show under the app's threads)",
    )
    g.add_argument(
        "--icicle",
        action="store_true",
        default=None,
        help="SVG flame graph with its roots on top, as the viewer draws it (default: bottom)",
    )
    options.add_selection(p)
    return p


def pick(fmt: str | None, target: str | None) -> Format:
    """The format `fmt` names, or the one OUT's suffix implies (formats of one trace only)."""
    if fmt is not None:
        try:
            found = get(fmt)
        except KeyError as exc:
            raise CliError(str(exc.args[0])) from None
        if found.name not in ONE_TRACE:
            raise CliError(
                f"export: {found.name} compares traces, it does not render one "
                f"(give one of {', '.join(ONE_TRACE)})"
            )
        return found
    if target in (None, "-"):
        raise CliError("writing to stdout needs --format (" + ", ".join(FORMATS) + ")")
    guessed = for_path(target, FORMATS) or for_path(target, ONE_TRACE)
    if guessed is None:
        raise CliError(
            f"cannot tell the format from {target!r}: give --format ({', '.join(FORMATS)})"
        )
    return guessed


# formats whose values are durations
TIMED = ("chrome", "speedscope", "pprof", "perfetto", "parquet")


def main(argv: list[str]) -> int:
    """Write the export; 0 on success."""
    args = parser().parse_args(argv)
    if args.output is None:
        raise CliError("give the output with -o FILE (- for stdout)")
    fmt = pick(args.format, args.output)
    opts = options.format_options("export", fmt, args, FLAGS)
    if fmt.subject == "directory" and args.output == "-":
        raise CliError(f"{fmt.name} writes a directory: give -o DIR")
    if "origin" in fmt.flags():  # the tables name the trace: its id is its bytes' SHA-256
        session, origin = options.open_identified(args.trace, args)
        opts = dataclasses.replace(opts, origin=origin)
    else:
        session = options.open_trace(args.trace, args)
    if session.timeless and fmt.name in TIMED:
        raise CliError(
            f"{fmt.name} holds times and this trace has none (an all-methods dump: the order "
            "of events); folded and svg draw it by count"
        )
    view = View(session, options.query(args, session))
    options.write(fmt, view, args.output, opts)
    if args.output != "-":
        print(f"traceview: wrote {args.output} ({fmt.name})", file=sys.stderr)
    return 0
