"""`traceview report TRACE [-o report.html] [--budget-mb 20]`: the viewer as one HTML file.

The page works from file:// and offline: the viewer's own assets and the precomputed answers
are inlined (`viewer/report.py`). Views that need a new computation show a note.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from traceview.analysis.view import View
from traceview.cli import options
from traceview.exporters import get

FLAGS = {"budget_bytes": "--budget-mb"}


def megabytes(text: str) -> int:
    """`--budget-mb 2.5` -> bytes (a negative budget is none)."""
    try:
        return int(max(float(text), 0) * (1 << 20))
    except (ValueError, OverflowError):
        raise argparse.ArgumentTypeError(f"bad size {text!r}: a number of MB") from None


def parser() -> argparse.ArgumentParser:
    """The argument parser of `traceview report`."""
    p = argparse.ArgumentParser(
        prog="traceview report",
        description="Write the viewer as one self-contained HTML file (works offline).",
    )
    options.add_trace(p)
    options.add_mapping(p)
    p.add_argument("-o", "--output", help="output file (default: TRACE name + .html)")
    p.add_argument(
        "--budget-mb",
        dest="budget_bytes",
        type=megabytes,
        metavar="MB",
        help="MB of precomputed timeline tiles to include (default 20)",
    )
    return p


def main(argv: list[str]) -> int:
    """Write the report; 0 on success."""
    args = parser().parse_args(argv)
    out = args.output or Path(args.trace).name + ".html"
    fmt = get("report")
    opts = options.format_options("report", fmt, args, FLAGS)
    session = options.open_trace(args.trace, args)
    view = View(session, session.query(rename=options.rename(args.mapping, session)))
    options.write(fmt, view, out, opts)
    if out != "-":
        size = Path(out).stat().st_size
        print(f"traceview: wrote {out} ({size / (1 << 20):.1f} MB)")
    return 0
