"""Reading a dataset: DuckDB views with hive partitioning (`traceview sql --dataset`), pyarrow
datasets, the trace ids present, the traces listing, and the runs `diff --dataset` compares.

Every reader checks the layout version first (`layout.check`: a newer dataset is refused in
one line). The views read only published part files (`layout.table_files`: nothing under
`_staging`), with `app`, `build` and `date` as strings from the folder names; a table without
a part yet is an empty view of its columns, so every query runs on any dataset.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from traceview.api.sql import Result, execute, literal
from traceview.api.table import optional
from traceview.dataset.layout import (
    ALL_TABLES,
    PARTITIONS,
    check,
    file_columns,
    read_schema,
    table_files,
)
from traceview.dataset.publish import JOURNAL, STAGING, locked, recover

WHAT = "a traceview dataset"
DUCK_TYPES = {
    "int32": "INTEGER",
    "int64": "BIGINT",
    "double": "DOUBLE",
    "bool": "BOOLEAN",
    "string": "VARCHAR",
}


def settle(root: Path) -> None:
    """Finish a publication a dead writer left half done (its journal), if this process may
    write the dataset; a reader then sees every trace whole (`publish.recover`)."""
    if not any((root / STAGING).glob(f"*/{JOURNAL}")):
        return
    try:
        with locked(root):
            recover(root)
    except OSError:
        pass  # a read-only dataset: its writers finish it


def published_ids(root: Path) -> set[str]:
    """The trace ids of the traces and errors tables."""
    pq = optional("pyarrow.parquet", WHAT)
    out: set[str] = set()
    for table in ("traces", "errors"):
        for f in table_files(root, table):
            out.update(pq.ParquetFile(f).read(columns=["trace_id"]).column(0).to_pylist())
    return out


def arrow_dataset(root: Path, table: str) -> Any:
    """`table` as a `pyarrow.dataset.Dataset` (partitions as strings)."""
    check(root)
    settle(root)
    ds = optional("pyarrow.dataset", WHAT)
    pa = optional("pyarrow", WHAT)
    parts = ds.partitioning(pa.schema([(p, pa.string()) for p in PARTITIONS]), flavor="hive")
    return ds.dataset(
        [str(f) for f in table_files(root, table)],
        schema=read_schema(table),
        format="parquet",
        partitioning=parts,
        partition_base_dir=str(root / table),
    )


def define(con: Any, root: Path) -> None:
    """One view per table over `root`'s parts in the DuckDB connection `con`."""
    check(root)
    settle(root)
    hive = "{" + ", ".join(f"'{p}': 'VARCHAR'" for p in PARTITIONS) + "}"
    for table in ALL_TABLES:
        files = table_files(root, table)
        if files:
            listing = "[" + ", ".join(literal(str(f)) for f in files) + "]"
            con.execute(
                f"CREATE VIEW {table} AS SELECT * FROM read_parquet({listing}, "
                f"hive_partitioning = true, hive_types = {hive}, union_by_name = true)"
            )
        else:
            columns = [*file_columns(table), *((p, "string") for p in PARTITIONS)]
            cols = ", ".join(f"CAST(NULL AS {DUCK_TYPES[t]}) AS {n}" for n, t in columns)
            con.execute(f"CREATE VIEW {table} AS SELECT {cols} LIMIT 0")


def sql(root: Path, query: str, params: Sequence[object] | None = None) -> Result:
    """Run `query` (with `params` for its `?`) over the dataset's views (api.sql.SqlError
    when it fails)."""
    return execute(lambda con: define(con, root), query, params)


def listing(root: Path) -> Result:
    """One row per trace (app, build, date, name, trace id, records, duration, labels), and
    the errors after them."""
    return sql(
        root,
        "SELECT trace_id, app, build, date, name, records, duration_ns, branch, device, "
        "labels, NULL AS reason FROM traces UNION ALL "
        "SELECT trace_id, app, build, date, name, NULL, NULL, NULL, NULL, NULL, reason "
        "FROM errors ORDER BY app, build, date, name, trace_id",
    )


def resolve(root: Path, given: Sequence[str]) -> list[str]:
    """The trace ids of the dataset that `given` names (whole ids or prefixes of at least 8
    hex digits); ValueError for one matching none or several."""
    known = sorted(published_ids(root))
    out = []
    for g in given:
        want = g.strip().lower()
        if len(want) < 8 or any(c not in "0123456789abcdef" for c in want):
            raise ValueError(f"bad trace id {g!r}: give at least 8 of its hex digits")
        hits = [k for k in known if k.startswith(want)]
        if not hits:
            raise ValueError(f"no trace {g} in {root}")
        if len(hits) > 1:
            raise ValueError(f"{g} names {len(hits)} traces: give more digits")
        out.append(hits[0])
    return out


__all__ = ["arrow_dataset", "define", "listing", "published_ids", "resolve", "sql"]
