"""`traceview report TRACE [-o report.html] [--budget-mb 20]`: the viewer as one HTML file;
with `--vs NEW...` the viewer in compare mode (`viewer/compare_report.py`: the Diff tab, the
differential flame graph, both timelines), TRACE the baseline.

The page works from file:// and offline: the viewer's own assets and the precomputed answers
are inlined (`viewer/report.py`). Views that need a new computation show a note.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from traceview.analysis.query import Rename
from traceview.analysis.session import Session
from traceview.analysis.view import View
from traceview.cli import options
from traceview.cli.options import CliError
from traceview.exporters import get
from traceview.viewer import compare_report
from traceview.viewer.comparing import Sides

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
        "--vs",
        nargs="+",
        metavar="NEW",
        help="compare TRACE (the baseline) with these runs: the compare viewer's page",
    )
    p.add_argument(
        "--vs-mapping", metavar="FILE", help="the candidates' mapping.txt (default: --mapping)"
    )
    p.add_argument(
        "--budget-mb",
        dest="budget_bytes",
        type=megabytes,
        metavar="MB",
        help="MB of precomputed timeline tiles to include (default 20)",
    )
    return p


def _compare_report(
    base: Session, rename: Rename | None, args: argparse.Namespace, out: str, budget: int
) -> None:
    """The compare page of `base` against the runs of `--vs`."""
    cand = [options.open_trace(path, args) for path in args.vs]
    if set(base.clocks).isdisjoint(cand[0].clocks):
        raise CliError("the two sides share no clock: they cannot be compared")
    rename_cand = options.rename(args.vs_mapping, cand[0]) if args.vs_mapping else None
    sides = Sides((base,), tuple(cand), rename=rename, rename_cand=rename_cand)
    with options.output(out) as stream:
        compare_report.export(sides, stream, budget)


def main(argv: list[str]) -> int:
    """Write the report; 0 on success."""
    args = parser().parse_args(argv)
    out = args.output or Path(args.trace).name + ".html"
    fmt = get("report")
    opts = options.format_options("report", fmt, args, FLAGS)
    session = options.open_trace(args.trace, args)
    rename = options.rename(args.mapping, session)
    if args.vs:
        _compare_report(session, rename, args, out, opts.budget_bytes)
    else:
        options.write(fmt, View(session, session.query(rename=rename)), out, opts)
    if out != "-":
        size = Path(out).stat().st_size
        print(f"traceview: wrote {out} ({size / (1 << 20):.1f} MB)")
    return 0
