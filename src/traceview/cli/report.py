"""`traceview report TRACE [-o report.html] [--budget-mb 20]`: the viewer as one HTML file.

The page works from file:// and offline: the viewer's own assets and the precomputed answers
are inlined (`traceview.exporters.html`). Views that need a new computation show a note.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from traceview.exporters import html
from traceview.web import report
from traceview.web.app import static_dir
from traceview.web.session import Session


def parser() -> argparse.ArgumentParser:
    """The argument parser of `traceview report`."""
    p = argparse.ArgumentParser(
        prog="traceview report",
        description="Write the viewer as one self-contained HTML file (works offline).",
    )
    p.add_argument("trace", help="a .trace file (any variant, gzip too)")
    p.add_argument("-o", "--output", help="output file (default: TRACE name + .html)")
    p.add_argument(
        "--budget-mb",
        type=float,
        default=report.BUDGET / (1 << 20),
        help="MB of precomputed timeline tiles to include (default %(default)g)",
    )
    return p


def main(argv: list[str]) -> int:
    """Write the report; 0 on success."""
    args = parser().parse_args(argv)
    out = Path(args.output) if args.output else Path(Path(args.trace).name + ".html")
    session = Session.load(args.trace)
    session.live = False
    data = report.precompute(session, budget=int(args.budget_mb * (1 << 20)))
    size = html.export(static_dir(), data, out)
    print(f"traceview: wrote {out} ({size / (1 << 20):.1f} MB)")
    return 0
