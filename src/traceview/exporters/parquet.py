"""The `parquet` format (pyarrow, the `data` extra): one trace's tables as Parquet part files,
a folder per table (subject kind `directory`) — the layout of a dataset (docs/dataset.md)
without its partition folders, read unchanged by DuckDB, Spark, Trino, BigQuery and pandas.

The tables (`api/schema.py`: traces, threads, methods, calls, edges, profile; columns in
docs/tables.md) are built by `api/` from a `View` and the trace's `Origin` (its SHA-256,
file name and labels); every table starts with `trace_id`. `write_directory(view, out,
origin)` writes `out/<table>/part-<n>.parquet`; the calls table is cut into as many row
ranges as there are workers (TRACEVIEW_WORKERS, default 2; one range of `SPLIT` rows at
least), each built and encoded on a thread of its own into its own part file (pyarrow's
encoder releases the GIL, so the parts take both cores), while the small tables are built
and written on another thread from the start (beside the calls' shared exclusive times).
`trace_tables` gives the same tables for writers of many traces (`traceview.dataset`, the
Spark ingest).

Encoding (`writer_options`, one rule for every table): zstd pages; 64-bit integers (row
numbers, times) `DELTA_BINARY_PACKED`, which suits columns that grow along the rows; the
other numbers (32-bit rows, bools) plain (a dictionary of a few thousand method rows costs
more to build than it saves after zstd); strings (names, `trace_id`) dictionary-encoded;
the encoder fed 64Ki rows at a time; row groups of at most 1Mi rows. No Arrow schema is
stored in the files, so every reader sees the plain Parquet types (`trace_id` is written
from a one-value dictionary, read back as a string). Where a 2M-record export's CPU goes
(benchmarks/RESULTS.md): the encoding ~65 %, the call table and its exclusive times ~15 %,
the calls' columns ~10 %, the small tables ~7 %.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from traceview.analysis.view import View
from traceview.analysis.workers import default_workers
from traceview.api.schema import COLUMNS, LAYOUT, TABLES
from traceview.api.table import Table, optional
from traceview.api.tables import CallsBuilder, origins, tables_except_calls
from traceview.api.traces import Origin, traces_table

NAME = "parquet"
SUFFIXES = (".parquet",)
BINARY = True
SUBJECT = "directory"
WHAT = "Parquet export"
ROW_GROUP = 1 << 20  # rows per row group (pyarrow's default size; readers split on them)
SPLIT = 1 << 18  # rows of calls per writer thread, at least (one part file each)
BATCH = 1 << 16  # rows the encoder takes at once (pyarrow's 1,024: ~5 % more CPU)
COMPRESSION = "zstd"


@dataclass(frozen=True)
class Options:
    """`origin`: the trace's identity for `trace_id` and the traces table (the command line
    makes it from the file; None: `trace_id` is null and the labels are the defaults)."""

    origin: Origin | None = None


def arrow_schema(table: str, dictionary_id: bool = False) -> Any:
    """The pyarrow schema of `table` (`api/schema.py`); `dictionary_id`: `trace_id` as a
    dictionary of strings (how the writers hold it: one value, no copy per row)."""
    pa = optional("pyarrow", WHAT)
    types = {
        "int32": pa.int32(),
        "int64": pa.int64(),
        "double": pa.float64(),
        "bool": pa.bool_(),
        "string": pa.string(),
    }
    fields = []
    for name, kind in COLUMNS[table]:
        t = types[kind]
        if name == "trace_id" and dictionary_id:
            t = pa.dictionary(pa.int32(), pa.string())
        fields.append(pa.field(name, t))
    return pa.schema(fields)


def to_arrow(table: str, columns: Table, trace_id: str | None) -> Any:
    """The Table `columns` of `table` as a pyarrow table of its schema, `trace_id` first (a
    one-value dictionary column; a column `columns` holds itself wins)."""
    pa = optional("pyarrow", WHAT)
    schema = arrow_schema(table, dictionary_id=True)
    n = len(columns)
    arrays = []
    for field in schema:
        if field.name == "trace_id" and "trace_id" not in columns:
            if trace_id is None:  # unknown: nulls (null indices, an empty dictionary)
                ids, values = pa.nulls(n, pa.int32()), pa.array([], pa.string())
            else:
                ids, values = pa.array(np.zeros(n, dtype=np.int32)), pa.array([trace_id])
            arrays.append(pa.DictionaryArray.from_arrays(ids, values))
            continue
        v = columns[field.name]
        if field.name == "trace_id":
            arrays.append(pa.array(v.tolist(), pa.string()).dictionary_encode())  # type: ignore[union-attr]
        elif v is None:
            arrays.append(pa.nulls(n, field.type))
        elif v.dtype == object:
            arrays.append(pa.array(v.tolist(), field.type))
        else:
            arrays.append(pa.array(v, field.type))
    return pa.Table.from_arrays(arrays, schema=schema)


def writer_options(schema: Any) -> dict[str, Any]:
    """The writer's settings for a table of `schema` (the module docstring's encoding)."""
    pa = optional("pyarrow", WHAT)
    wide = [f.name for f in schema if pa.types.is_int64(f.type)]
    return {
        "compression": COMPRESSION,
        "use_dictionary": [f.name for f in schema if not pa.types.is_primitive(f.type)],
        "column_encoding": dict.fromkeys(wide, "DELTA_BINARY_PACKED"),
        "write_batch_size": BATCH,
        "store_schema": False,
    }


def metadata(view: View) -> dict[bytes, bytes]:
    """The files' key-value metadata: layout version, clock, clocks, sampled, time range."""
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


def write_pieces(
    table: str, pieces: Iterable[Any], where: str | Path | IO[bytes], meta: dict[bytes, bytes]
) -> None:
    """pyarrow tables of `table`'s schema as one Parquet file, each piece its row groups (at
    most `ROW_GROUP` rows each); `meta` in the file's metadata. No piece: no rows."""
    pq = optional("pyarrow.parquet", WHAT)
    schema = arrow_schema(table, dictionary_id=True)
    with pq.ParquetWriter(where, schema, **writer_options(schema)) as writer:
        for piece in pieces:
            writer.write_table(piece, row_group_size=ROW_GROUP)
        if meta:
            writer.add_key_value_metadata({k.decode(): v.decode() for k, v in meta.items()})


def trace_tables(
    view: View, origin: Origin, rows: int = ROW_GROUP
) -> tuple[dict[str, Any], Iterator[Any]]:
    """The view's tables for a writer of many traces: the small ones (traces, threads,
    methods, edges, profile) as pyarrow tables, built now (a trace that fails fails here,
    before anything is written), and the calls as pyarrow pieces of at most `rows` rows,
    built as they are consumed."""
    tid = origin.trace_id
    small = {"traces": traces_table(view, origin), **tables_except_calls(view)}
    arrow = {name: to_arrow(name, columns, tid) for name, columns in small.items()}
    build = CallsBuilder(view)
    calls = (to_arrow("calls", piece, tid) for piece in build.pieces(0, len(build), rows))
    return arrow, calls


def write_files(
    view: View, folder: Path, origin: Origin | None = None, workers: int | None = None
) -> None:
    """`folder/<table>/part-<n>.parquet` for every table (`folder` exists, the table folders
    do not). The calls table in `workers` row ranges (default TRACEVIEW_WORKERS, else 2), one
    part file each, written on as many threads. ImportError without pyarrow."""
    optional("pyarrow.parquet", WHAT)
    origin = origin or Origin(trace_id=None)
    tid, meta = origin.trace_id, metadata(view)
    for name in TABLES:
        (folder / name).mkdir()
    most = default_workers(unset=2) if workers is None else workers

    def small_tables() -> None:
        small = {"traces": traces_table(view, origin), **tables_except_calls(view)}
        for name, columns in small.items():
            part = folder / name / "part-00000.parquet"
            write_pieces(name, [to_arrow(name, columns, tid)], part, meta)

    with ThreadPoolExecutor(max(1, most) + 1) as pool:
        # the small tables (mostly the profile's per-thread parts) beside the calls' shared
        # columns (the exclusive times, a compiled pass), then beside the calls' parts
        done = [pool.submit(small_tables)]
        build = CallsBuilder(view)
        n = len(build)
        k = max(1, min(most, -(-n // SPLIT)))
        bounds = [n * i // k for i in range(k + 1)]

        def calls_part(i: int) -> None:
            pieces = (
                to_arrow("calls", p, tid) for p in build.pieces(bounds[i], bounds[i + 1], ROW_GROUP)
            )
            write_pieces("calls", pieces, folder / "calls" / f"part-{i:05d}.parquet", meta)

        done += [pool.submit(calls_part, i) for i in range(k)]
        for d in done:
            d.result()


def write_directory(view: View, path: str | Path, origin: Origin | None = None) -> None:
    """`path/<table>/part-<n>.parquet` (the directory is created): the tables are written
    in a folder beside them, then each table's folder replaces the old one whole."""
    root = Path(path)
    root.mkdir(parents=True, exist_ok=True)
    tmp = root / f".traceview-tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        write_files(view, tmp, origin)
        for name in TABLES:
            shutil.rmtree(root / name, ignore_errors=True)
            (tmp / name).rename(root / name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def export(view: View, out: str | Path, options: Options) -> None:
    """The selection's tables into the directory `out` (`write_directory`)."""
    write_directory(view, out, options.origin)


__all__ = [
    "ROW_GROUP",
    "Options",
    "arrow_schema",
    "export",
    "metadata",
    "to_arrow",
    "trace_tables",
    "write_directory",
    "write_files",
    "write_pieces",
    "writer_options",
]
