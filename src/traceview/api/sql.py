"""SQL over one trace or a thousand (optional extra `data`: DuckDB), the query engine of
`traceview sql` over the API's tables.

Each trace's tables (`api/schema.py`: traces, threads, methods, calls, edges, profile) are
Parquet part files in a folder per table (the `parquet` format writes them; `complete`
says a directory holds them all); `run` opens an in-memory DuckDB, defines one view per
table over every directory's files, with a leading `trace` column naming the trace when
several are queried (joined on `trace_id`), and runs the user's SQL; `execute` runs a query
over views another caller defines (a dataset's, `traceview.dataset.read`). DuckDB reads only
the columns and files a query needs, so a group-by across a hundred traces reads a few
columns of each, in parallel. Where the directories live (a cache, a temporary folder) and
how results are shown is the caller's choice (`cli/sql.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from traceview.api.schema import TABLES
from traceview.api.table import optional

SOURCES = "traceview_sources"  # the helper table naming each trace id


class SqlError(ValueError):
    """The query failed (syntax, an unknown column, a type error): DuckDB's first line."""


@dataclass(frozen=True)
class Source:
    """One trace to query: `label` (the `trace` column's value), its `trace_id` and the
    directory holding its tables (`<table>/part-*.parquet`)."""

    label: str
    directory: Path
    trace_id: str


@dataclass(frozen=True)
class Result:
    """A query's column names and rows (Python values as DuckDB returns them)."""

    columns: list[str]
    rows: list[tuple[Any, ...]]


def complete(directory: Path) -> bool:
    """True when `directory` holds a part of every table the views read."""
    return all(any((directory / name).glob("*.parquet")) for name in TABLES)


def run(sources: Sequence[Source], sql: str, trace_column: bool) -> Result:
    """Run `sql` over the sources' tables (`trace` column first when `trace_column`)."""
    return execute(lambda con: _define(con, sources, trace_column), sql)


def execute(
    define: Callable[[Any], None], sql: str, params: Sequence[object] | None = None
) -> Result:
    """Run `sql` (with `params` for its `?`) in a fresh in-memory DuckDB after
    `define(connection)` made its views."""
    duckdb = optional("duckdb", "traceview sql")
    con = duckdb.connect(":memory:")
    try:
        define(con)
        try:
            cur = con.execute(sql, params) if params else con.execute(sql)
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
        con.execute(f"CREATE TEMP TABLE {SOURCES} (trace_id VARCHAR, trace VARCHAR)")
        con.executemany(
            f"INSERT INTO {SOURCES} VALUES (?, ?)", [(s.trace_id, s.label) for s in sources]
        )
    for name in TABLES:
        # a trace given twice (or two names for the same bytes) is read once and joined to
        # each of its names
        files = sorted({str(s.directory / name / "*.parquet") for s in sources})
        listing = "[" + ", ".join(literal(f) for f in files) + "]"
        if trace_column:
            con.execute(
                f"CREATE VIEW {name} AS SELECT s.trace, t.* "
                f"FROM read_parquet({listing}, union_by_name = true) t "
                f"JOIN {SOURCES} s USING (trace_id)"
            )
        else:
            con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet({listing})")


def literal(text: str) -> str:
    """A SQL string literal."""
    return "'" + text.replace("'", "''") + "'"
