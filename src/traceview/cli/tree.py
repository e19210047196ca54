"""`traceview tree TRACE [SELECTION] [--max-depth N] [--json] [-o FILE]`: the merged top-down
call tree of the selected threads (default: the main thread), one line per node, or nested
JSON (exporters/tree.py)."""

from __future__ import annotations

from traceview.analysis.view import View
from traceview.cli import options
from traceview.cli.parser import Parser
from traceview.exporters import get

FLAGS = {"max_depth": "--max-depth"}


def main(argv: list[str]) -> int:
    """Print the tree of a selection."""
    parser = Parser(prog="traceview tree", description=__doc__)
    options.add_trace(parser)
    options.add_selection(parser)
    parser.add_argument("--max-depth", type=int, help="deepest level shown (0 = roots)")
    options.add_output(parser)
    args = parser.parse_args(argv)
    session = options.open_trace(args.trace, args)
    q = options.query(args, session, default_main=True)
    fmt = get("tree-json" if args.json else "tree")
    opts = options.format_options("tree", fmt, args, FLAGS)
    options.write(fmt, View(session, q), args.output, opts)
    return 0
