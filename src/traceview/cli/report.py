"""`traceview report TRACE [-o report.html] [--budget-mb 20]`: the viewer as one HTML file.

The page works from file:// and offline: the viewer's own assets and the precomputed answers
are inlined (`exporters/report.py`). Views that need a new computation show a note.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from traceview.analysis.view import View
from traceview.cli import options
from traceview.cli.parser import Parser
from traceview.exporters import Options, get
from traceview.exporters.report import BUDGET


def parser() -> argparse.ArgumentParser:
    """The argument parser of `traceview report`."""
    p = Parser(
        prog="traceview report",
        description="Write the viewer as one self-contained HTML file (works offline).",
    )
    options.add_trace(p)
    options.add_mapping(p)
    p.add_argument("-o", "--output", help="output file (default: TRACE name + .html)")
    p.add_argument(
        "--budget-mb",
        type=float,
        default=BUDGET / (1 << 20),
        help="MB of precomputed timeline tiles to include (default %(default)g)",
    )
    return p


def main(argv: list[str]) -> int:
    """Write the report; 0 on success."""
    args = parser().parse_args(argv)
    out = args.output or Path(args.trace).name + ".html"
    session = options.open_trace(args.trace, args)
    budget = int(max(args.budget_mb, 0) * (1 << 20))
    options.write(
        get("report"),
        View(session, session.query(rename=options.rename(args.mapping, session))),
        out,
        Options(budget_bytes=budget),
    )
    if out != "-":
        size = Path(out).stat().st_size
        print(f"traceview: wrote {out} ({size / (1 << 20):.1f} MB)")
    return 0
