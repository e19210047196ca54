"""The `parquet` exporter (pyarrow, the `data` extra): the selection's tables as Parquet files,
the interchange for DuckDB, Spark, Trino, BigQuery and pandas.

The tables are the ones `traceview sql` and the Python API use, defined once in
`analysis/tables.py` (columns: docs/tables.md): `write_directory(view, path)` writes
`path/{calls,methods,threads,edges}.parquet` (a directory per trace, like Spark's
`x.parquet/`), zstd-compressed, each file replaced whole. Each file's metadata names the
layout version, the clock, the clocks recorded, whether the trace is sampled and the time
range. As a stream exporter (`export`) it writes the calls table alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO, Any

from traceview.analysis.columnar import optional
from traceview.analysis.tables import LAYOUT, calls_table, origins, tables
from traceview.analysis.view import View
from traceview.exporters import Exporter, Options

WHAT = "Parquet export"


def _metadata(view: View) -> dict[bytes, bytes]:
    q = view.query
    meta = {
        "traceview.layout": str(LAYOUT),
        "traceview.clock": q.clock,
        "traceview.clocks": ",".join(view.session.clocks),
        "traceview.sampled": str(bool(view.trace.header.sampled)).lower(),
    }
    if q.time_range is not None:
        zero = origins(view.session).get(q.time_range.clock, view.session.origin)
        meta["traceview.range_ns"] = f"{q.time_range.lo - zero},{q.time_range.hi - zero}"
    return {k.encode(): v.encode() for k, v in meta.items()}


def _arrow(table: Any, view: View) -> Any:
    arrow = table.to_arrow()
    return arrow.replace_schema_metadata({**(arrow.schema.metadata or {}), **_metadata(view)})


def write_directory(view: View, path: str | Path) -> None:
    """`path/{calls,methods,threads,edges}.parquet` (the directory is created; each file is
    written beside its place and renamed over it). ImportError without pyarrow."""
    pq = optional("pyarrow.parquet", WHAT)
    root = Path(path)
    root.mkdir(parents=True, exist_ok=True)
    for name, table in tables(view).items():
        tmp = root / f".{name}.parquet.tmp"
        try:
            pq.write_table(_arrow(table, view), tmp, compression="zstd")
            tmp.replace(root / f"{name}.parquet")
        finally:
            tmp.unlink(missing_ok=True)


def export_calls(view: View, out: IO[Any], options: Options) -> None:
    """The calls table as one Parquet file on a stream."""
    pq = optional("pyarrow.parquet", WHAT)
    pq.write_table(_arrow(calls_table(view), view), out, compression="zstd")


PARQUET = Exporter(
    "parquet",
    (".parquet",),
    True,
    "Parquet tables (calls, methods, threads, edges) in a directory (needs pyarrow)",
    export_calls,
)

__all__ = ["PARQUET", "write_directory"]
