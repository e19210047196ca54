"""The `parquet` exporter (pyarrow, the `data` extra): the selection's tables as Parquet files,
the interchange for DuckDB, Spark, Trino, BigQuery and pandas.

The tables are the ones `traceview sql` and the Python API use, defined once in
`analysis/tables.py` (columns: docs/tables.md). `write_files(view, folder)` writes
`folder/{calls,methods,threads,edges}.parquet`; `write_directory(view, path)` (a directory
per trace, like Spark's `x.parquet/`) replaces each file whole, and `traceview sql`'s cache
renames a whole folder into place. Each file's metadata names the layout version, the clock,
the clocks recorded, whether the trace is sampled and the time range. As a stream exporter
(`export`) it writes the calls table alone.

Encoding (`write_arrow`, one rule for every table): zstd pages; 64-bit integers (row
numbers, times) `DELTA_BINARY_PACKED`, which suits columns that grow along the rows and
writes ~1.7x faster than dictionary attempts on them; other columns (32-bit rows such as
thread, method, depth, and names) dictionary-encoded; row groups of pyarrow's default 1Mi
rows, so readers split the calls table across cores. The calls table is built and written in
a second thread while the small tables are.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO, Any

from traceview.analysis.columnar import optional
from traceview.analysis.tables import LAYOUT, calls_table, origins, tables_except_calls
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


def write_arrow(arrow: Any, where: str | Path | IO[bytes], metadata: dict[bytes, bytes]) -> None:
    """One pyarrow table as a Parquet file, encoded as the module docstring says."""
    pa = optional("pyarrow", WHAT)
    pq = optional("pyarrow.parquet", WHAT)
    schema = arrow.schema
    wide = [f.name for f in schema if pa.types.is_int64(f.type) or pa.types.is_uint64(f.type)]
    plain = set(wide) | {f.name for f in schema if pa.types.is_boolean(f.type)}
    pq.write_table(
        arrow.replace_schema_metadata({**(schema.metadata or {}), **metadata}),
        where,
        compression="zstd",
        use_dictionary=[f.name for f in schema if f.name not in plain],
        column_encoding=dict.fromkeys(wide, "DELTA_BINARY_PACKED"),
    )


def write_files(view: View, folder: Path) -> None:
    """`folder/{calls,methods,threads,edges}.parquet` (the folder exists). ImportError
    without pyarrow."""
    optional("pyarrow.parquet", WHAT)
    meta = _metadata(view)

    def calls() -> None:
        write_arrow(calls_table(view).to_arrow(), folder / "calls.parquet", meta)

    with ThreadPoolExecutor(1) as pool:
        done = pool.submit(calls)
        for name, table in tables_except_calls(view).items():
            write_arrow(table.to_arrow(), folder / f"{name}.parquet", meta)
        done.result()


def write_directory(view: View, path: str | Path) -> None:
    """`path/{calls,methods,threads,edges}.parquet` (the directory is created; the files are
    written in a folder beside them and each renamed over its place)."""
    root = Path(path)
    root.mkdir(parents=True, exist_ok=True)
    tmp = root / f".traceview-tmp-{os.getpid()}"
    tmp.mkdir(exist_ok=True)
    try:
        write_files(view, tmp)
        for part in sorted(tmp.iterdir()):
            part.replace(root / part.name)
    finally:
        for part in tmp.iterdir():
            part.unlink(missing_ok=True)
        tmp.rmdir()


def export_calls(view: View, out: IO[Any], options: Options) -> None:
    """The calls table as one Parquet file on a stream."""
    write_arrow(calls_table(view).to_arrow(), out, _metadata(view))


PARQUET = Exporter(
    "parquet",
    (".parquet",),
    True,
    "Parquet tables (calls, methods, threads, edges) in a directory (needs pyarrow)",
    export_calls,
)

__all__ = ["PARQUET", "write_arrow", "write_directory", "write_files"]
