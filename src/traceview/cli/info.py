"""`traceview info TRACE [--json] [-o FILE]`: what a trace file is and what the reader and the
engine repaired (exporters/info.py)."""

from __future__ import annotations

from traceview.analysis.view import View
from traceview.cli import options
from traceview.cli.parser import Parser
from traceview.exporters import get


def main(argv: list[str]) -> int:
    """Run `traceview info`."""
    parser = Parser(prog="traceview info", description=__doc__)
    options.add_trace(parser)
    options.add_mapping(parser)
    options.add_output(parser)
    args = parser.parse_args(argv)
    session = options.open_trace(args.trace, args)
    view = View(session, session.query(rename=options.rename(args.mapping, session)))
    options.write(get("info-json" if args.json else "info"), view, args.output)
    return 0
