"""`traceview anr FILE [--process NAME|PID] [--limit N] [--min MS] [--time trace|monotonic]
[--json] [-o FILE]`: what was slow when an ANR hit — each thread's calls still running at the
dump (the main thread first), then every call over ART's threshold with its callers, longest
first (exporters/anr.py), times from the trace's start or on CLOCK_MONOTONIC. FILE is an ANR
report, a bugreport zip or an Android 16 long-running dump.
"""

from __future__ import annotations

from traceview.analysis.view import View
from traceview.cli import options
from traceview.cli.parser import Parser
from traceview.exporters import get


def main(argv: list[str]) -> int:
    """Run `traceview anr`."""
    parser = Parser(prog="traceview anr", description=__doc__)
    options.add_trace(parser)
    options.add_mapping(parser)
    options.add_time(parser)
    options.add_output(parser)
    parser.add_argument("--limit", type=int, default=50, help="slow calls listed (default 50)")
    parser.add_argument(
        "--min",
        type=int,
        metavar="MS",
        help="list calls of at least MS milliseconds (default: ART's threshold, ~341 ms)",
    )
    args = parser.parse_args(argv)
    session = options.open_trace(args.trace, args)
    view = View(session, options.query(args, session))
    fmt = get("anr-json" if args.json else "anr")
    options.write(fmt, view, args.output, fmt.options(limit=args.limit, min_ms=args.min))
    return 0
