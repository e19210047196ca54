"""`traceview dataset add|ls|rm|compact`: keep many traces of many builds as one Parquet dataset
(docs/dataset.md) that `traceview sql --dataset`, `traceview diff --dataset`, DuckDB, Spark,
Trino and BigQuery read.

    traceview dataset add ROOT TRACE... [--app A] [--build B] [--label k=v ...] [--mapping F]
    traceview dataset ls ROOT [--json]
    traceview dataset rm ROOT TRACE_ID...
    traceview dataset compact ROOT

`add` is idempotent (a trace already there is skipped) and safe with other writers at once;
a trace that fails to read is recorded in the errors table with its reason and the others
go on (exit status 2 when any failed or could not be opened, else 0). An add merges the
small parts of the partitions it wrote into once enough have gathered; `compact` merges every
small part of every partition now (docs/dataset.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import NoReturn

from traceview.cli import options
from traceview.cli.options import CliError
from traceview.model import printable


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise CliError(f"dataset: {message} (see traceview dataset --help)")


def parser() -> argparse.ArgumentParser:
    """The command's options."""
    p = _Parser(
        prog="traceview dataset",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="action", required=True, metavar="add|ls|rm|compact")
    a = sub.add_parser("add", help="add traces (idempotent)")
    a.add_argument("root", metavar="ROOT", help="the dataset's folder (created when missing)")
    a.add_argument("traces", nargs="+", metavar="TRACE", help="trace files")
    a.add_argument("--app", help="the app label (a partition; default: unknown)")
    a.add_argument("--build", help="the build label (a partition; default: unknown)")
    a.add_argument(
        "--label",
        action="append",
        default=[],
        metavar="K=V",
        help="another label, e.g. branch=main, device=pixel8 (repeatable)",
    )
    options.add_mapping(a)
    options.add_loading(a)
    a.add_argument("-q", "--quiet", action="store_true", help="no line per trace")
    ls = sub.add_parser("ls", help="list the traces and the ones that failed")
    ls.add_argument("root", metavar="ROOT")
    ls.add_argument("--json", action="store_true", help="one JSON object per trace")
    rm = sub.add_parser("rm", help="remove traces by id (or 8+ hex digits of it)")
    rm.add_argument("root", metavar="ROOT")
    rm.add_argument("ids", nargs="+", metavar="TRACE_ID")
    co = sub.add_parser("compact", help="merge the small part files of every partition")
    co.add_argument("root", metavar="ROOT")
    return p


def main(argv: list[str]) -> int:
    """Run the action; 0 on success, 2 when a trace failed or bad input."""
    args = parser().parse_args(argv)
    for module in ("duckdb", "pyarrow"):
        try:
            __import__(module)
        except ImportError:
            raise CliError(
                "traceview dataset needs duckdb and pyarrow: pip install 'traceview[data]'"
            ) from None
    from traceview.dataset.layout import DatasetError

    try:
        if args.action == "add":
            return _add(args)
        if args.action == "ls":
            return _ls(args)
        if args.action == "compact":
            return _compact(args)
        return _rm(args)
    except (DatasetError, ValueError) as exc:
        raise CliError(printable(str(exc))) from None


def _add(args: argparse.Namespace) -> int:
    from traceview.dataset import labels as labelling
    from traceview.dataset.add import Reading, add
    from traceview.readers import DEFAULT_MAX_SIZE

    given = {"app": args.app, "build": args.build, **labelling.parse(args.label)}
    labelling.check(given)  # before the mapping or any trace is read
    reading = Reading(
        max_size=args.max_size or DEFAULT_MAX_SIZE,
        salvage=args.salvage,
        rename=options.rename(args.mapping),
        process=args.process,
    )

    def progress(name: str, outcome: str) -> None:
        if not args.quiet:
            print(f"traceview: {printable(name)}: {printable(outcome)}", file=sys.stderr)

    report = add(Path(args.root), args.traces, given, reading, progress=progress)
    for path, why in report.unreadable:
        print(f"traceview: {printable(path)}: {why}", file=sys.stderr)
    _unmerged(Path(args.root), report.unmerged)
    print(
        f"traceview: {len(report.added)} added, {len(report.failed)} failed (in the errors "
        f"table), {len(report.present)} already there, {len(report.unreadable)} unreadable",
        file=sys.stderr,
    )
    return 2 if report.failed or report.unreadable else 0


def _ls(args: argparse.Namespace) -> int:
    from traceview.dataset.read import listing

    result = listing(Path(args.root))
    if args.json:
        for row in result.rows:
            print(json.dumps(dict(zip(result.columns, row, strict=True)), ensure_ascii=False))
        return 0
    for row in result.rows:
        r = dict(zip(result.columns, row, strict=True))
        what = (
            f"failed: {r['reason']}"
            if r["reason"] is not None
            else f"{r['records']} records, {_ms(r['duration_ns'])}"
        )
        print(
            printable(
                f"{r['trace_id'][:12]}  {r['app']}  {r['build']}  {r['date']}  {r['name']}  {what}"
            )
        )
    print(f"({len(result.rows)} traces)", file=sys.stderr)
    return 0


def _rm(args: argparse.Namespace) -> int:
    from traceview.dataset.remove import remove

    gone = remove(Path(args.root), args.ids)
    for tid in gone:
        print(f"traceview: removed {tid}", file=sys.stderr)
    return 0


def _compact(args: argparse.Namespace) -> int:
    from traceview.dataset.compact import compact

    done = compact(Path(args.root))
    _unmerged(Path(args.root), done.skipped)
    print(f"traceview: {done.merged} part files fewer", file=sys.stderr)
    return 2 if done.skipped else 0


def _unmerged(root: Path, skipped: list[tuple[Path, str]]) -> None:
    """A line for each set of small parts that could not be merged (left as they are)."""
    for folder, why in skipped:
        where = printable(str(root / folder))
        print(f"traceview: {where}: small parts left unmerged: {why}", file=sys.stderr)


def _ms(ns: int | None) -> str:
    return "no times" if ns is None else f"{ns / 1e6:.1f} ms"
