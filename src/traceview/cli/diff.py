"""`traceview diff BASELINE... --vs CANDIDATE... [SELECTION] [THRESHOLDS] [OUTPUT]`: compare
runs per method, per thread and per call path (analysis/compare.py) and gate on regressions
(docs/diff.md).

Exit status: 1 when a method regresses past the thresholds, 0 otherwise, 2 on bad input.
Every run is opened through the one open path and selected with the shared options; the
text table (or `--json` / `--markdown`, or with `-o FILE.svg` the differential flame graph)
goes to stdout or `-o`; `--junit FILE` and `--svg FILE` in addition.
"""

from __future__ import annotations

import argparse
import re
from typing import NoReturn

from traceview.analysis.compare import compare, summarise_run
from traceview.analysis.diff import Run, Thresholds
from traceview.analysis.session import Session
from traceview.analysis.view import View
from traceview.analysis.workers import default_workers, parallel_map
from traceview.cli import options
from traceview.cli.options import CliError
from traceview.exporters import get
from traceview.model import printable

FLAGS = {"limit": "--limit"}  # the main output's format options (--junit's takes none)

_PERCENT = re.compile(r"^\s*\+?([0-9]{1,9}(?:\.[0-9]{1,9})?)\s*%?\s*$")


def percent(text: str) -> float:
    """`10%` or `10` -> 0.10."""
    m = _PERCENT.match(text)
    if m is None:
        raise argparse.ArgumentTypeError(f"bad percentage {text!r}: e.g. 10% or 2.5%")
    return float(m.group(1)) / 100


class _Parser(argparse.ArgumentParser):
    """Bad options are bad input like any other: one line, exit status 2 (cli/__init__)."""

    def error(self, message: str) -> NoReturn:
        raise CliError(f"diff: {message} (see traceview diff --help)")


def parser() -> argparse.ArgumentParser:
    """The command's options."""
    p = _Parser(
        prog="traceview diff",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("baseline", nargs="+", metavar="BASELINE", help="baseline runs (traces)")
    p.add_argument(
        "--vs", nargs="+", required=True, metavar="CANDIDATE", help="candidate runs (traces)"
    )
    options.add_selection(p)
    options.add_loading(p)
    p.add_argument(
        "--vs-mapping",
        metavar="FILE",
        help="the candidates' mapping.txt when their build differs (--mapping: the baselines'; "
        "default: --mapping for both)",
    )
    add_thresholds(p)
    options.add_output(p)
    o = p.add_argument_group("more output")
    o.add_argument(
        "--markdown", action="store_true", help="write Markdown (PR comment, job summary)"
    )
    o.add_argument("--junit", metavar="FILE", help="also write JUnit XML here (CI test report)")
    o.add_argument(
        "--svg",
        metavar="FILE",
        help="also write the differential flame graph here (an SVG; -o FILE.svg alone does too)",
    )
    o.add_argument("--limit", type=int, help="rows of the text/Markdown table (default 40, 0: all)")
    return p


def add_thresholds(p: argparse.ArgumentParser) -> None:
    """--fail-above, --min-time, --methods, --metric, --confidence: what counts as a change
    (`traceview diff` and `traceview compare`)."""
    g = p.add_argument_group("thresholds")
    g.add_argument(
        "--fail-above",
        type=percent,
        default=0.10,
        metavar="PERCENT",
        help="a method fails when its median time grows by more than this (default 10%%)",
    )
    g.add_argument(
        "--min-time",
        type=options.duration_ns,
        default=1_000_000,
        metavar="TIME",
        help="ignore methods under this median time on both sides (default 1ms)",
    )
    g.add_argument(
        "--methods",
        action="append",
        default=[],
        metavar="PATTERN",
        help="gate only methods matching a glob on class.method[signature], or re:REGEX "
        "(repeatable)",
    )
    g.add_argument(
        "--metric",
        choices=("excl", "incl"),
        default="excl",
        help="time the gate compares: exclusive (default; points at the method that got "
        "slower) or inclusive (also flags its callers)",
    )
    g.add_argument(
        "--confidence",
        type=percent,
        default=0.95,
        metavar="PERCENT",
        help="one-sided confidence that a change exceeds the run-to-run spread (default 95%%)",
    )


def thresholds(args: argparse.Namespace) -> Thresholds:
    """The parsed thresholds (a one-line `CliError` when out of range)."""
    try:
        return Thresholds(
            fail_above=args.fail_above,
            min_time_ns=args.min_time,
            metric=args.metric,
            confidence=args.confidence,
            methods=tuple(args.methods),
        )
    except ValueError as exc:
        raise CliError(printable(str(exc))) from None


def main(argv: list[str]) -> int:
    """Compare the runs; 1 when a regression passes the thresholds."""
    args = parser().parse_args(argv)
    if args.json and args.markdown:
        raise CliError("--json and --markdown exclude each other")
    flame = args.output is not None and args.output.lower().endswith(".svg")
    if flame and (args.json or args.markdown):
        raise CliError("-o FILE.svg writes the flame graph: use --svg FILE with --json/--markdown")
    limits = thresholds(args)
    name = "diff-json" if args.json else "diff-markdown" if args.markdown else "diff"
    fmt = get("diff-svg" if flame else name)
    opts = options.format_options("diff", fmt, args, FLAGS)
    first = options.open_trace(args.baseline[0], args)
    if args.clock is None:  # one clock for every run: the first baseline's default
        args.clock = first.default_clock
    base = [_summarise(args.baseline[0], first, args)]
    del first  # each trace is let go once summarised: many large runs fit in memory
    vs_args = args
    if args.vs_mapping is not None:  # another build: its own names (a.b.c may now be a.b.d)
        vs_args = argparse.Namespace(**{**vars(args), "mapping": args.vs_mapping})
    # two runs at a time (TRACEVIEW_WORKERS says otherwise): reading and summarising a run
    # leave a core idle a good part of the time; two traces in memory at once, no more
    todo = [(p, args) for p in args.baseline[1:]] + [(p, vs_args) for p in args.vs]
    runs = parallel_map(lambda job: _run(*job), todo, default_workers(unset=2))
    base += runs[: len(args.baseline) - 1]
    cand = runs[len(args.baseline) - 1 :]
    try:
        result = compare(base, cand, limits)
    except ValueError as exc:
        raise CliError(printable(str(exc))) from None
    if args.junit:
        options.write(get("diff-junit"), result, args.junit)
    if args.svg:
        options.write(get("diff-svg"), result, args.svg)
    options.write(fmt, result, args.output, opts)
    return 1 if result.regressions else 0


def _run(path: str, args: argparse.Namespace) -> Run:
    return _summarise(path, options.open_trace(path, args), args)


def _summarise(path: str, session: Session, args: argparse.Namespace) -> Run:
    """The run's numbers and call paths for the selection; a selection this run cannot honour
    (a thread or clock it lacks) names the file."""
    try:
        q = options.query(args, session)
    except CliError as exc:
        raise CliError(f"{printable(path)}: {exc}") from None
    return summarise_run(View(session, q))
