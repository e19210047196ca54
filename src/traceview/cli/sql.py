"""`traceview sql TRACE... QUERY`: SQL (DuckDB, optional extra `data`) over the traces, threads,
methods, calls, edges and profile tables of one trace or many (globs expanded here, sorted),
with a leading `trace` column when several traces or a glob are given; `traceview sql
--dataset ROOT QUERY` over a dataset's tables (`dataset/read.py`). The query engine is
`api/sql.py`; this command finds or builds each trace's tables (the `parquet` format) and
formats the result (a table, `--json` or `--csv`).

Each trace's tables are Parquet files built once and cached by content:
`$XDG_CACHE_HOME/traceview/sql/v<layout>-<version>/<sha256 of the file's bytes>/` (default
`~/.cache/...`), so a second query over a thousand CI runs reads only Parquet; `paths/` there
remembers each file's hash by its identity (path, size, mtime, inode). `--no-cache`
builds them in a temporary folder removed afterwards (also used for stdin and split traces,
which are not one file to hash). Nothing is written next to the traces.
"""

from __future__ import annotations

import argparse
import csv
import glob
import hashlib
import json
import math
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import IO, Any

from traceview.analysis.view import View
from traceview.api.sql import Result, Source, SqlError, complete, run
from traceview.api.tables import LAYOUT
from traceview.cli.options import (
    CliError,
    add_loading,
    add_mapping,
    add_output,
    open_identified,
    output,
    rename,
    write,
)
from traceview.cli.parser import Parser
from traceview.dataset.keys import process_id
from traceview.exporters import get
from traceview.exporters.bigtable import print_grid
from traceview.model import printable, visible
from traceview.readers.files import stamp

EXTRA = "traceview sql needs duckdb and pyarrow: pip install 'traceview[data]'"


def parser() -> argparse.ArgumentParser:
    """The `sql` command's options."""
    p = Parser(
        prog="traceview sql",
        description="Run SQL (DuckDB) over the calls, methods, threads and edges tables of "
        "one or many traces; with several traces or a glob, every table starts with a "
        "'trace' column. Times are int64 ns from the trace's start; see docs/tables.md.",
        epilog="example: traceview sql 'runs/*.trace' \"SELECT trace, sum(excl_wall_ns) "
        'FROM calls JOIN threads USING (trace, thread) WHERE main GROUP BY trace"',
    )
    p.add_argument("traces", nargs="*", metavar="TRACE", help="trace files or globs (quoted)")
    p.add_argument("query", metavar="QUERY", help="the SQL to run")
    p.add_argument(
        "--dataset",
        metavar="ROOT",
        help="query a dataset (traceview dataset add) instead of traces: its tables with "
        "app, build and date columns (docs/dataset.md)",
    )
    add_output(p, json=True)
    add_loading(p)
    add_mapping(p)
    p.add_argument("--csv", action="store_true", help="write CSV")
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="build the tables in a temporary folder instead of the cache "
        "($XDG_CACHE_HOME/traceview/sql)",
    )
    return p


def main(argv: list[str]) -> int:
    """Run the query and print its result."""
    args = parser().parse_args(argv)
    if args.csv and args.json:
        raise CliError("--csv and --json: choose one")
    for module in ("duckdb", "pyarrow"):
        try:
            __import__(module)
        except ImportError:
            raise CliError(EXTRA) from None
    result = dataset_query(args) if args.dataset is not None else traces_query(args)
    with output(args.output) as out:
        if args.json:
            write_json(result, out)
        elif args.csv:
            write_csv(result, out)
        else:
            write_table(result, out, tty=args.output in (None, "-") and sys.stdout.isatty())
    return 0


def dataset_query(args: argparse.Namespace) -> Result:
    """The query over the dataset `--dataset ROOT` (no trace is read)."""
    from traceview.dataset.layout import DatasetError
    from traceview.dataset.read import sql

    if args.traces:
        raise CliError("sql: give traces or --dataset ROOT, not both")
    try:
        return sql(Path(args.dataset), args.query)
    except (SqlError, DatasetError) as exc:
        raise CliError(printable(str(exc))) from None


def traces_query(args: argparse.Namespace) -> Result:
    """The query over the traces given (their tables built or found in the cache)."""
    if not args.traces:
        raise CliError("sql: give at least one trace (or --dataset ROOT) and the query")
    paths, globbed = expand(args.traces)
    with tempfile.TemporaryDirectory(prefix="traceview-sql-") as scratch, progress(paths) as tick:
        sources = []
        for i, p in enumerate(paths):
            directory, trace_id = tables_of(p, i, Path(scratch), args)
            sources.append(Source(p, directory, trace_id))
            tick()
        try:
            return run(sources, args.query, trace_column=globbed or len(paths) > 1)
        except SqlError as exc:
            raise CliError(printable(str(exc))) from None


@contextmanager
def progress(paths: Sequence[str]) -> Iterator[Callable[[], None]]:
    """A step per trace on stderr while the tables are found or built (several traces on a
    terminal only; the first query over a thousand runs takes a while)."""
    if len(paths) < 2 or not sys.stderr.isatty():
        yield lambda: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("tables"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task("tables", total=len(paths))
        yield lambda: bar.advance(task)


def expand(specs: Sequence[str]) -> tuple[list[str], bool]:
    """The trace paths (each glob expanded, sorted; repeats dropped) and whether any spec was
    a glob."""
    out: list[str] = []
    globbed = False
    for spec in specs:
        if glob.has_magic(spec) and not Path(spec).exists():
            hits = sorted(glob.glob(spec, recursive=True))
            if not hits:
                raise CliError(f"no file matches {printable(spec)!r}")
            out.extend(h for h in hits if not Path(h).is_dir())
            globbed = True
        else:
            out.append(spec)
    return list(dict.fromkeys(out)), globbed  # a trace named twice is queried once


def cache_root() -> Path:
    """Where the Parquet tables are cached (by layout and traceview version, then by the
    SHA-256 of each trace's bytes)."""
    from traceview import __version__

    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "traceview" / "sql" / f"v{LAYOUT}-{__version__}"


def tables_of(path: str, index: int, scratch: Path, args: argparse.Namespace) -> tuple[Path, str]:
    """The directory with `path`'s tables and its trace id: from the cache (built on a miss)
    or, with `--no-cache` or for stdin and split traces, built in `scratch`. Tables read with
    `--salvage` are cached apart (they may hold data a plain read refuses)."""
    if args.no_cache or path == "-" or not Path(path).is_file():
        directory = scratch / str(index)
        return directory, build(path, directory, args)
    suffix = "-salvaged" if args.salvage else ""
    if args.mapping:  # names differ with the mapping: its own tables, keyed by its bytes
        suffix += "-mapping-" + digest_of(Path(args.mapping))[:16]
    digest = digest_of(Path(path))
    if getattr(args, "process", None) is not None:  # one process of a report: its own id
        digest = process_id(digest, args.process)
    directory = cache_root() / (digest + suffix)
    if not complete(directory):
        build(path, directory, args)
    return directory, digest


def digest_of(path: Path) -> str:
    """The SHA-256 of the file's bytes, remembered per file identity (its real path and
    `readers.files.stamp`) in `<cache>/paths/`, so a thousand unchanged traces are not read
    again on every query (1.3 GB of traces take ~2 s to hash on one core)."""
    known_as = ":".join(map(str, stamp(path) or ()))  # (no file: its open below says so)
    real = os.path.realpath(path).encode("utf-8", "surrogateescape")
    note = cache_root() / "paths" / hashlib.sha256(real).hexdigest()
    try:
        known, _, digest = note.read_text().partition(" ")
        if known == known_as and len(digest) == 64:
            return digest
    except (OSError, ValueError):
        pass
    with path.open("rb") as f:
        digest = hashlib.file_digest(f, "sha256").hexdigest()
    try:
        note.parent.mkdir(parents=True, exist_ok=True)
        tmp = note.with_name(f".{note.name}.{os.getpid()}")
        tmp.write_text(f"{known_as} {digest}")
        tmp.replace(note)
    except OSError:
        pass  # a read-only cache still works, only slower
    return digest


def build(path: str, directory: Path, args: argparse.Namespace) -> str:
    """Load `path` (with --max-size and --salvage) and write its whole-trace tables into
    `directory` (names through `--mapping` when given) with the `parquet` format, all or
    nothing: into a sibling temporary folder renamed into place (a concurrent writer of the
    same trace loses the race harmlessly); its trace id."""
    session, origin = open_identified(path, args)
    view = View(session, session.query(rename=rename(args.mapping, session)))
    directory.parent.mkdir(parents=True, exist_ok=True)
    tmp = directory.with_name(f".{directory.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    parquet = get("parquet")
    try:
        write(parquet, view, str(tmp), parquet.options(origin=origin))
        try:
            tmp.rename(directory)
        except OSError:
            if not complete(directory):
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    assert origin.trace_id is not None
    return origin.trace_id


# -- output -----------------------------------------------------------------------------------


def plain(value: Any) -> Any:
    """A JSON/CSV-friendly value: numbers, strings, bools, None, lists and objects."""
    if value is None or isinstance(value, bool | int | str):
        return visible(value) if isinstance(value, str) else value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, bytes):
        return value.hex()
    return str(value)


def keys(columns: Sequence[str]) -> list[str]:
    """Column names made distinct for JSON objects (a repeated name gets `:2`, `:3`...)."""
    seen: dict[str, int] = {}
    out = []
    for c in columns:
        seen[c] = seen.get(c, 0) + 1
        out.append(c if seen[c] == 1 else f"{c}:{seen[c]}")
    return out


def write_json(result: Result, out: IO[str]) -> None:
    """An array with one object per row (docs/json.md, `traceview sql --json`)."""
    names = keys(result.columns)
    out.write("[")
    for i, row in enumerate(result.rows):
        obj = dict(zip(names, (plain(v) for v in row), strict=True))
        out.write(("," if i else "") + "\n" + json.dumps(obj, ensure_ascii=False))
    out.write("\n]\n" if result.rows else "]\n")


def write_csv(result: Result, out: IO[str]) -> None:
    """A header row, then the rows (null as an empty field)."""
    w = csv.writer(out, lineterminator="\n")
    w.writerow(result.columns)
    for row in result.rows:
        w.writerow(["" if v is None else _csv_cell(plain(v)) for v in row])


def _csv_cell(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value, ensure_ascii=False) if isinstance(value, list | dict) else value


def write_table(result: Result, out: IO[str], tty: bool) -> None:
    """A table for people (rich); lines never wrap when written to a file or a pipe."""
    from rich.console import Console
    from rich.table import Table

    cells = [[_text(v) for v in row] for row in result.rows]

    def make() -> Table:
        table = Table(show_edge=False, header_style="bold", box=None, pad_edge=False)
        for i, name in enumerate(result.columns):
            numeric = all(
                isinstance(r[i], int | float | Decimal) or r[i] is None for r in result.rows
            )
            table.add_column(printable(name), justify="right" if numeric else "left")
        return table

    widths = [
        max([len(printable(c)), *(len(r[i]) for r in cells)]) for i, c in enumerate(result.columns)
    ]
    width = None if tty else max(80, sum(widths) + 2 * len(widths))
    console = Console(
        file=out,
        width=width,
        color_system="auto" if tty else None,
        highlight=False,
        markup=False,
        emoji=False,
    )
    print_grid(console, make, cells)
    noun = "row" if len(result.rows) == 1 else "rows"
    console.print(f"({len(result.rows)} {noun})", style="dim")


def _text(value: Any) -> str:
    if value is None:
        return "NULL"
    v = plain(value)
    return printable(json.dumps(v, ensure_ascii=False) if isinstance(v, list | dict) else str(v))
