"""`traceview stats TRACE [SELECTION] [--sort COLUMN] [--limit N] [--json] [-o FILE]`:
per-method statistics on both clocks, as a table or JSON (exporters/stats.py)."""

from __future__ import annotations

from traceview.analysis.view import View
from traceview.cli import options
from traceview.cli.parser import Parser
from traceview.exporters import get
from traceview.exporters.stats import COLUMNS

FLAGS = {"sort": "--sort", "limit": "--limit"}


def main(argv: list[str]) -> int:
    """Print the statistics of a selection."""
    parser = Parser(prog="traceview stats", description=__doc__)
    options.add_trace(parser)
    options.add_selection(parser)
    parser.add_argument("--sort", choices=sorted(COLUMNS), help="column to sort by")
    parser.add_argument("--limit", type=int, help="show at most N methods")
    options.add_output(parser)
    args = parser.parse_args(argv)
    session = options.open_trace(args.trace, args)
    q = options.query(args, session)
    if args.sort is None and args.clock:
        args.sort = f"incl-{args.clock}"
    fmt = get("stats-json" if args.json else "stats")
    opts = options.format_options("stats", fmt, args, FLAGS)
    options.write(fmt, View(session, q), args.output, opts)
    return 0
