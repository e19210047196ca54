"""SQL over one trace or a thousand (optional extra `data`: DuckDB), the query engine of
`traceview sql` over the API's tables.

Each trace's tables (`api/tables.py`: calls, methods, threads, edges) are Parquet files in a
directory of their own (the `parquet` format writes them; `complete` says a directory holds
them all); `run` opens an in-memory DuckDB, defines one view per table over every directory's
file, with a leading `trace` column naming the trace when several are queried, and runs the
user's SQL. DuckDB reads only the columns and files a query needs, so a group-by across a
hundred traces reads a few columns of each, in parallel. Where the directories live (a cache,
a temporary folder) and how results are shown is the caller's choice (`cli/sql.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from traceview.api.table import optional
from traceview.api.tables import SQL_TABLES

SOURCES = "traceview_sources"  # the helper table mapping a Parquet file to its trace


class SqlError(ValueError):
    """The query failed (syntax, an unknown column, a type error): DuckDB's first line."""


@dataclass(frozen=True)
class Source:
    """One trace to query: `label` (the `trace` column's value) and the directory holding its
    `{calls,methods,threads,edges}.parquet`."""

    label: str
    directory: Path


@dataclass(frozen=True)
class Result:
    """A query's column names and rows (Python values as DuckDB returns them)."""

    columns: list[str]
    rows: list[tuple[Any, ...]]


def complete(directory: Path) -> bool:
    """True when `directory` holds every table the views read."""
    return all((directory / f"{name}.parquet").is_file() for name in SQL_TABLES)


def run(sources: Sequence[Source], sql: str, trace_column: bool) -> Result:
    """Run `sql` over the sources' tables (`trace` column first when `trace_column`)."""
    duckdb = optional("duckdb", "traceview sql")
    con = duckdb.connect(":memory:")
    try:
        _define(con, sources, trace_column)
        try:
            cur = con.execute(sql)
            if cur.description is None:  # a statement without a result (e.g. SET)
                return Result([], [])
            columns = [str(d[0]) for d in cur.description]
            return Result(columns, cur.fetchall())
        except duckdb.Error as exc:
            lines = [x.strip() for x in str(exc).splitlines() if x.strip()]
            raise SqlError(lines[0] if lines else type(exc).__name__) from None
    finally:
        con.close()


def _define(con: Any, sources: Sequence[Source], trace_column: bool) -> None:
    """One view per table over the sources' Parquet files."""
    if trace_column:
        con.execute(f"CREATE TEMP TABLE {SOURCES} (filename VARCHAR, trace VARCHAR)")
        con.executemany(
            f"INSERT INTO {SOURCES} VALUES (?, ?)",
            [
                (str(s.directory / f"{name}.parquet"), s.label)
                for s in sources
                for name in SQL_TABLES
            ],
        )
    for name in SQL_TABLES:
        # a trace given twice (or two names for the same bytes) is read once and joined to
        # each of its names
        files = sorted({str(s.directory / f"{name}.parquet") for s in sources})
        listing = "[" + ", ".join(_literal(f) for f in files) + "]"
        if trace_column:
            con.execute(
                f"CREATE VIEW {name} AS SELECT s.trace, t.* EXCLUDE (filename) "
                f"FROM read_parquet({listing}, filename = true, union_by_name = true) t "
                f"JOIN {SOURCES} s USING (filename)"
            )
        else:
            con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet({listing})")


def _literal(text: str) -> str:
    """A SQL string literal."""
    return "'" + text.replace("'", "''") + "'"
