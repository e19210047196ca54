"""The dataset written by Apache Spark: `ingest(spark, paths, root, labels)` reads the traces
with Spark's `binaryFile` source and runs the unchanged reader and engine on the executors
(`mapInArrow`), writing the same tables as `dataset add` with `partitionBy(app, build, date)`.

Three steps: (1) the trace ids, SHA-256 computed by Spark itself (`sha2`) — traces already
in the dataset and repeated bytes are dropped on the driver; (2) each new trace is read once
on an executor, its tables serialised as Arrow IPC (zstd) rows `(table, partition, payload)`,
kept (`persist`); (3) per table, the rows are decoded to the table's columns
(`mapInArrow`), sorted within each task by the table's sort key and appended with
`partitionBy`. A local ROOT gets the same all-or-nothing publication as `dataset add`: Spark
writes into the writer's staging folder and the parts are renamed into place under the
dataset's lock. Any other ROOT (object storage) is appended to table by table, the traces
table last (docs/dataset.md). pyspark is imported here only.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from traceview.api.schema import COLUMNS, SORT_KEYS
from traceview.api.table import optional
from traceview.dataset import labels as labelling
from traceview.dataset.layout import ALL_TABLES, PARTITIONS, check, table_files
from traceview.readers import DEFAULT_MAX_SIZE

WHAT = "the Spark ingest"
PAYLOAD = (
    "table string, app string, build string, date string, trace_id string, note string, "
    "payload binary"
)
SPARK_TYPES = {
    "int32": "int",
    "int64": "bigint",
    "double": "double",
    "bool": "boolean",
    "string": "string",
}


@dataclass
class Ingested:
    """What an ingest did: trace ids `added`, `failed` (id, reason), `present` (already in
    the dataset, or a repeat of bytes given twice)."""

    added: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    present: list[str] = field(default_factory=list)


def spark_schema(table: str) -> str:
    """`table`'s columns as Spark DDL (files' columns, then the partitions as strings)."""
    cols = [f"{n} {SPARK_TYPES[t]}" for n, t in COLUMNS[table] if n not in PARTITIONS]
    return ", ".join([*cols, *(f"{p} string" for p in PARTITIONS)])


def ingest(
    spark: Any,
    paths: Sequence[str],
    root: str,
    labels: Mapping[str, str | None] | None = None,
    mapping: str | None = None,
    max_size: int = DEFAULT_MAX_SIZE,
) -> Ingested:
    """Add the traces at `paths` (files, folders or globs Spark reads) to the dataset at
    `root` (a local folder or a Hadoop URI such as s3a://bucket/prefix) with `labels`."""
    checked = labelling.check(dict(labels or {}))  # before Spark is asked anything
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    rename = _rename(mapping)
    local = "://" not in root or root.startswith("file://")
    base = Path(root.removeprefix("file://"))
    if local:
        check(base, create=True)
    report = Ingested()
    files = _listed(spark, list(paths))
    ids = files.select("path", F.sha2("content", 256).alias("trace_id")).collect()
    known = _known(spark, root, base if local else None)
    chosen: dict[str, str] = {}
    for row in sorted(ids, key=lambda r: (r.trace_id, r.path)):
        if row.trace_id in known or row.trace_id in chosen.values():
            report.present.append(row.trace_id)
        else:
            chosen[row.path] = row.trace_id
    if not chosen:
        return report
    job = _Job(chosen, checked, rename, max_size)
    payload = (
        files.where(F.col("path").isin(list(chosen)))
        .mapInArrow(job.tables, PAYLOAD)
        .persist(StorageLevel.MEMORY_AND_DISK)
    )
    try:
        for row in (
            payload.where("table IN ('traces', 'errors')")
            .select("table", "trace_id", "note")
            .collect()
        ):
            if row.table == "traces":
                report.added.append(row.trace_id)
            else:
                report.failed.append((row.trace_id, row.note))
        if local:
            _publish(payload, base, [*chosen.values()])
        else:
            for table in [*ALL_TABLES[1:], "traces"]:  # the traces table last
                _write(payload, table, f"{root.rstrip('/')}/{table}")
    finally:
        payload.unpersist()
    return report


def _listed(spark: Any, paths: list[str]) -> Any:
    """The binaryFile rows of `paths`, listed on the driver: Spark lists more than 32 paths
    with a job of one task per path (`parallelPartitionDiscovery`), seconds of overhead for a
    list of files."""
    key = "spark.sql.sources.parallelPartitionDiscovery.threshold"
    before = spark.conf.get(key, None)
    spark.conf.set(key, str(max(32, len(paths) + 1)))
    try:
        return spark.read.format("binaryFile").load(paths)
    finally:
        if before is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, before)


def _publish(payload: Any, root: Path, ids: list[str]) -> None:
    """Spark writes into a staging folder; the parts are published as `dataset add`'s."""
    from traceview.dataset.publish import Writer, locked, recover

    with Writer(root) as writer:
        with locked(root):
            recover(root)
            writer.claim(ids, set())
        try:
            for table in ALL_TABLES:
                _write(payload, table, str(writer.staging / table))
            moves = [
                (p.relative_to(writer.staging), p.relative_to(writer.staging))
                for p in sorted(writer.staging.rglob("*.parquet"))
                if not any(s.startswith((".", "_")) for s in p.relative_to(writer.staging).parts)
            ]
            with locked(root):
                writer.publish(moves, (), ids)
        except BaseException:
            with locked(root):
                writer.release(ids)
            raise


def _write(payload: Any, table: str, where: str) -> None:
    """Decode `table`'s payload rows and append them, partitioned, at `where`."""
    rows = payload.where(payload.table == table).select("app", "build", "date", "payload")
    decoded = rows.mapInArrow(_Decode(table), spark_schema(table))
    (
        decoded.sortWithinPartitions(*PARTITIONS, *SORT_KEYS[table])
        .write.mode("append")
        .option("compression", "zstd")
        .partitionBy(*PARTITIONS)
        .parquet(where)
    )


def _known(spark: Any, root: str, local: Path | None) -> set[str]:
    """The trace ids of the dataset's traces and errors tables (none when it is new)."""
    out: set[str] = set()
    for table in ("traces", "errors"):
        if local is not None and not table_files(local, table):
            continue
        try:
            rows = spark.read.parquet(f"{root.rstrip('/')}/{table}").select("trace_id").collect()
        except Exception:  # no such folder yet: Spark's AnalysisException
            continue
        out.update(r.trace_id for r in rows)
    return out


def _rename(mapping: str | None) -> Any:
    if mapping is None:
        return None
    from traceview.analysis.rename import MappingRename
    from traceview.readers.mapping import read_mapping

    return MappingRename(read_mapping(mapping))


@dataclass(frozen=True)
class _Job:
    """What the executors need (pickled with the function): the chosen paths and their
    ids, the labels, the renaming, the size limit."""

    chosen: dict[str, str]
    labels: labelling.Labels
    rename: Any
    max_size: int

    def tables(self, batches: Iterator[Any]) -> Iterator[Any]:
        """binaryFile rows in, one payload row per table (and calls piece) out."""
        pa = optional("pyarrow", WHAT)

        for batch in batches:
            cols = batch.to_pydict()
            for path, mtime, content in zip(
                cols["path"], cols["modificationTime"], cols["content"], strict=True
            ):
                rows = list(self.trace_rows(path, mtime.timestamp(), content))
                yield pa.RecordBatch.from_pylist(rows, schema=_payload_schema())

    def trace_rows(self, path: str, mtime: float, content: bytes) -> Iterator[dict[str, Any]]:
        """The payload rows of one trace (its tables, or its error)."""
        from dataclasses import replace

        from traceview.analysis.session import Session
        from traceview.analysis.view import View
        from traceview.api.traces import Origin
        from traceview.dataset.add import error_row, reason, where
        from traceview.dataset.keys import trace_date
        from traceview.exporters.parquet import trace_tables
        from traceview.model import TraceError
        from traceview.readers import load

        tid = hashlib.sha256(content).hexdigest()
        name = path.rstrip("/").rsplit("/", 1)[-1]
        origin = Origin(tid, name, len(content), trace_date(None, mtime), self.labels)
        try:
            trace = load(content, max_size=self.max_size)
            origin = replace(origin, date=trace_date(trace.header, mtime))
            if trace.header.axis != "time":
                raise ValueError("it records no times (an all-methods dump): nothing to measure")
            session = Session(trace)
            small, calls = trace_tables(View(session, session.query(rename=self.rename)), origin)
        except (TraceError, OSError, MemoryError, ValueError) as exc:
            why = reason(exc)
            yield _row("errors", where(origin), tid, why, error_row(origin, why))
            return
        at = where(origin)
        for table, arrow in small.items():
            yield _row(table, at, tid, name, arrow)
        for piece in calls:
            yield _row("calls", at, tid, name, piece)


class _Decode:
    """Payload rows of one table in, that table's rows out (partitions from the payload)."""

    def __init__(self, table: str) -> None:
        self.table = table

    def __call__(self, batches: Iterator[Any]) -> Iterator[Any]:
        pa = optional("pyarrow", WHAT)

        for batch in batches:
            cols = batch.to_pydict()
            for app, build, date, payload in zip(
                cols["app"], cols["build"], cols["date"], cols["payload"], strict=True
            ):
                table = pa.ipc.open_stream(payload).read_all()
                table = table.select([c for c in table.column_names if c not in PARTITIONS])
                ids = table.column("trace_id").cast(pa.string())  # from its dictionary
                table = table.set_column(0, "trace_id", ids)
                n = table.num_rows
                for p, v in zip(PARTITIONS, (app, build, date), strict=True):
                    table = table.append_column(p, pa.array([v] * n, pa.string()))
                yield from table.to_batches()


def _row(table: str, at: tuple[str, str, str], tid: str, note: str, arrow: Any) -> dict[str, Any]:
    pa = optional("pyarrow", WHAT)

    sink = pa.BufferOutputStream()
    options = pa.ipc.IpcWriteOptions(compression="zstd")
    with pa.ipc.new_stream(sink, arrow.schema, options=options) as w:
        w.write_table(arrow)
    app, build, date = at
    return {
        "table": table,
        "app": app,
        "build": build,
        "date": date,
        "trace_id": tid,
        "note": note,
        "payload": sink.getvalue().to_pybytes(),
    }


def _payload_schema() -> Any:
    pa = optional("pyarrow", WHAT)

    return pa.schema(
        [(n, pa.string()) for n in ("table", "app", "build", "date", "trace_id", "note")]
        + [("payload", pa.binary())]
    )


__all__ = ["Ingested", "ingest", "spark_schema"]
