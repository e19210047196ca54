"""The `parquet` format (pyarrow, the `data` extra): the selection's tables as Parquet files in
a directory (subject kind `directory`), the interchange for DuckDB, Spark, Trino, BigQuery and
pandas.

The tables are the ones `traceview sql` and the Python API use, defined once in
`api/tables.py` (columns: docs/tables.md). `write_files(view, folder)` writes
`folder/{calls,methods,threads,edges}.parquet`; `write_directory(view, path)` (a directory
per trace, like Spark's `x.parquet/`) replaces each file whole, and `traceview sql`'s cache
renames a whole folder into place; `export(view, directory, options)` is `write_directory`.
Each file's metadata names the layout version, the clock, the clocks recorded, whether the
trace is sampled and the time range.

Encoding (`write_arrow`, one rule for every table): zstd pages; 64-bit integers (row
numbers, times) `DELTA_BINARY_PACKED`, which suits columns that grow along the rows and
writes ~1.7x faster than dictionary attempts on them; other columns (32-bit rows such as
thread, method, depth, and names) dictionary-encoded; row groups of 1Mi rows, so readers
split the calls table across cores. The calls table is built a row group at a time, each
piece while the last is encoded, on threads of its own while the small tables are written.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from traceview.analysis.view import View
from traceview.api.table import optional
from traceview.api.tables import LAYOUT, calls_batches, origins, tables_except_calls

NAME = "parquet"
SUFFIXES = (".parquet",)
BINARY = True
SUBJECT = "directory"
WHAT = "Parquet export"
ROW_GROUP = 1 << 20  # calls per row group (pyarrow's default size; readers split on them)


@dataclass(frozen=True)
class Options:
    """Parquet takes no options: the four tables of the selection, encoded as above."""


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


def _options(schema: Any) -> dict[str, Any]:
    """The writer's settings for a table of `schema` (the module docstring's encoding)."""
    pa = optional("pyarrow", WHAT)
    wide = [f.name for f in schema if pa.types.is_int64(f.type) or pa.types.is_uint64(f.type)]
    plain = set(wide) | {f.name for f in schema if pa.types.is_boolean(f.type)}
    return {
        "compression": "zstd",
        "use_dictionary": [f.name for f in schema if f.name not in plain],
        "column_encoding": dict.fromkeys(wide, "DELTA_BINARY_PACKED"),
    }


def _write(pieces: Iterator[Any], where: str | Path | IO[bytes], meta: dict[bytes, bytes]) -> None:
    """pyarrow tables of one schema as one Parquet file, each piece its row groups; `meta`
    added to the schema's metadata."""
    pq = optional("pyarrow.parquet", WHAT)
    writer = None
    try:
        for piece in pieces:
            if writer is None:
                schema = piece.schema.with_metadata({**(piece.schema.metadata or {}), **meta})
                writer = pq.ParquetWriter(where, schema, **_options(schema))
            writer.write_table(piece.replace_schema_metadata(writer.schema.metadata))
    finally:
        if writer is not None:
            writer.close()


def write_arrow(arrow: Any, where: str | Path | IO[bytes], metadata: dict[bytes, bytes]) -> None:
    """One pyarrow table as a Parquet file."""
    _write(iter([arrow]), where, metadata)


def write_calls(view: View, where: str | Path | IO[bytes], metadata: dict[bytes, bytes]) -> None:
    """The calls table as a Parquet file, a row group per piece of `ROW_GROUP` calls, each
    piece built while the last one is encoded (memory: a few pieces, never the table)."""
    with _ahead(piece.to_arrow() for piece in calls_batches(view, ROW_GROUP)) as pieces:
        _write(pieces, where, metadata)


@contextlib.contextmanager
def _ahead(items: Iterator[Any]) -> Iterator[Iterator[Any]]:
    """`items` made on a thread of their own, one ahead of the consumer (the numpy and
    pyarrow work on both sides releases the GIL); a failure there is raised here, and a
    consumer that stops early stops the maker at its next item."""
    made: queue.Queue[Any] = queue.Queue(maxsize=1)
    stop = threading.Event()
    end = object()

    def offer(item: Any) -> bool:
        while not stop.is_set():
            with contextlib.suppress(queue.Full):
                made.put(item, timeout=0.1)
                return True
        return False

    def make() -> None:
        try:
            for item in items:
                if not offer(item):
                    return
            offer(end)
        except BaseException as exc:  # handed to the consumer, which raises it
            offer(exc)

    def consume() -> Iterator[Any]:
        while (item := made.get()) is not end:
            if isinstance(item, BaseException):
                raise item
            yield item

    maker = threading.Thread(target=make, daemon=True)
    maker.start()
    try:
        yield consume()
    finally:
        stop.set()
        maker.join()


def write_files(view: View, folder: Path) -> None:
    """`folder/{calls,methods,threads,edges}.parquet` (the folder exists). ImportError
    without pyarrow."""
    optional("pyarrow.parquet", WHAT)
    meta = _metadata(view)
    with ThreadPoolExecutor(1) as pool:
        done = pool.submit(write_calls, view, folder / "calls.parquet", meta)
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


def export(view: View, out: str | Path, options: Options) -> None:
    """The selection's tables into the directory `out` (`write_directory`)."""
    write_directory(view, out)


__all__ = ["Options", "export", "write_arrow", "write_calls", "write_directory", "write_files"]
