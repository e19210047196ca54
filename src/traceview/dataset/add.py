"""`add(root, paths, labels)`: traces into a dataset — each read once by the unchanged reader
and engine, its tables appended to part files, published all at once (`dataset/publish.py`),
then the small parts of the partitions it wrote into merged once enough have gathered
(`dataset/compact.py`).

Idempotent by `trace_id` (the SHA-256 of the bytes): a trace already in the dataset (its
traces or errors table) or being added by another live writer is skipped; `replacing=True`
adds it again, its old rows removed in the publication that adds the new ones (the service,
when a trace's labels or mapping change). A `Source` brings a trace with labels and a mapping
of its own (the service's runs: many, each as it is stored, in one publication). The traces
to add are taken in `trace_id` order by `workers` (TRACEVIEW_WORKERS, default 2), each with
its own part files (`dataset/parts.py`): worker processes once the traces weigh
`PROCESS_BYTES` (the reader's and the tables' Python parts hold the GIL: two threads kept one
core busy), threads below (a process costs about a second to start). A trace that fails to
read (a format error, a file too large, out of memory) is recorded in the `errors` table with
its one-line reason and the job goes on; a file that cannot be opened at all has no id and is
only reported.
"""

from __future__ import annotations

import multiprocessing
import queue
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from traceview.analysis.query import Rename
from traceview.analysis.rename import MappingRename
from traceview.analysis.session import Session
from traceview.analysis.view import View
from traceview.analysis.workers import default_workers
from traceview.api.table import Table
from traceview.api.traces import Origin
from traceview.dataset import labels as labelling
from traceview.dataset.compact import compact
from traceview.dataset.keys import Identity, identify, process_id, trace_date
from traceview.dataset.layout import VERSION, check
from traceview.dataset.parts import Parts
from traceview.dataset.publish import Writer, locked, recover
from traceview.dataset.read import published_ids
from traceview.dataset.remove import without
from traceview.exporters.parquet import to_arrow, trace_tables
from traceview.model import TraceError, printable
from traceview.readers import DEFAULT_MAX_SIZE, load
from traceview.readers.mapping import read_mapping

PROCESS_BYTES = 32 << 20  # traces to add, in all: from this much on, worker processes


@dataclass
class Report:
    """What an `add` did: `added` and `failed` (recorded in the errors table, with the
    reason) as (trace_id, name[, reason]); `present` (already in the dataset or being added
    by another writer); `unreadable` (path, reason): files that could not be opened;
    `unmerged` (folder, reason): small parts the merging after the add could not merge (the
    add itself is done)."""

    added: list[tuple[str, str]] = field(default_factory=list)
    failed: list[tuple[str, str, str]] = field(default_factory=list)
    present: list[tuple[str, str]] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    unmerged: list[tuple[Path, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Reading:
    """How traces are read: the reader's limits, the mapping's renaming (`rename`, or a
    `mapping` file read for each trace's classes) and, for ANR reports and bugreports, whose
    dump (its own trace id: `keys.process_id`)."""

    max_size: int = DEFAULT_MAX_SIZE
    salvage: bool = False
    rename: Rename | None = None
    process: str | None = None
    mapping: Path | None = None  # read for each trace's own classes only (the service's)


@dataclass(frozen=True)
class Source:
    """A trace to add with `labels` and a `mapping` file of its own instead of the call's."""

    path: Path
    labels: Mapping[str, str | None]
    mapping: Path | None = None


Item = tuple[Identity, Path, labelling.Labels, Path | None]  # a trace, its labels and mapping


def add(
    root: Path,
    paths: Sequence[str | Path | Source],
    labels: Mapping[str, str | None] | None = None,
    reading: Reading | None = None,
    workers: int | None = None,
    progress: Callable[[str, str], None] | None = None,
    replacing: bool = False,
) -> Report:
    """Add the traces at `paths` (files, or `Source`s with labels and a mapping of their
    own) to the dataset at `root` (created when missing) with `labels` (checked: ValueError
    for a bad one; DatasetError for a newer dataset);
    `progress(name, outcome)` is called as each trace is done. With `replacing`, a trace
    already there is added again: its old rows go in the publication that adds the new."""
    checked = labelling.check(dict(labels or {}))
    reading = reading or Reading()
    given = [
        (p.path, labelling.check(dict(p.labels)), p.mapping)
        if isinstance(p, Source)
        else (Path(p), checked, reading.mapping)
        for p in paths
    ]  # every label checked before anything is written
    check(root, create=True)
    report = Report()
    found: dict[str, Item] = {}
    for path, its, mapping in given:
        try:
            ident = identify(path)
        except OSError as exc:
            report.unreadable.append((str(path), reason(exc)))
            continue
        if reading.process is not None:
            ident = replace(ident, trace_id=process_id(ident.trace_id, reading.process))
        found.setdefault(ident.trace_id, (ident, path, its, mapping))
    with Writer(root) as writer:
        with locked(root):
            recover(root)
            mine = set(writer.claim(sorted(found), set() if replacing else published_ids(root)))
        report.present += [(t, found[t][0].name) for t in sorted(found) if t not in mine]
        try:
            items = [found[t] for t in sorted(mine)]
            staged = _write(writer, items, reading, workers, report, progress)
            with locked(root):
                moves, deletes = without(root, writer, sorted(mine)) if replacing else ([], [])
                writer.publish([*moves, *staged], deletes, sorted(mine))
        except BaseException:
            with locked(root):
                writer.release(mine)
            raise
    merging = compact(root, {p.parent for p, _ in staged}, everything=False)  # a part per add
    report.unmerged += merging.skipped
    return report


def _write(
    writer: Writer,
    items: list[Item],
    reading: Reading,
    workers: int | None,
    report: Report,
    progress: Callable[[str, str], None] | None,
) -> list[tuple[Path, Path]]:
    """Every item's tables into part files of `writer`'s staging folder, on worker threads;
    the (staged, published) paths of the parts."""
    n = max(1, min(default_workers(unset=2) if workers is None else workers, len(items)))
    if n > 1 and sum(item[0].size or 0 for item in items) >= PROCESS_BYTES:
        return _write_in_processes(writer, items, reading, n, report, progress)
    todo: queue.Queue[Item] = queue.Queue()
    for item in items:
        todo.put(item)
    parts = [Parts(writer.staging, f"{writer.name}-{w}") for w in range(n)]
    lock = threading.Lock()
    failures: list[BaseException] = []

    def work(mine: Parts) -> None:
        try:
            while not failures:
                try:
                    ident, path, labels, mapping = todo.get_nowait()
                except queue.Empty:
                    break
                failed = _one(ident, path, labels, replace(reading, mapping=mapping), mine)
                with lock:
                    if failed is None:
                        report.added.append((ident.trace_id, ident.name))
                    else:
                        report.failed.append((ident.trace_id, ident.name, failed))
                if progress is not None:
                    progress(ident.name, failed or "added")
            mine.close()
        except BaseException as exc:
            failures.append(exc)
            mine.abort()

    threads = [threading.Thread(target=work, args=(p,), daemon=True) for p in parts[1:]]
    for t in threads:
        t.start()
    work(parts[0])
    for t in threads:
        t.join()
    if failures:
        raise failures[0]
    return [(p, p) for mine in parts for p in mine.written]


def _write_in_processes(
    writer: Writer,
    items: list[Item],
    reading: Reading,
    n: int,
    report: Report,
    progress: Callable[[str, str], None] | None,
) -> list[tuple[Path, Path]]:
    """`_write` on `n` worker processes, each taking the next trace from one queue into part
    files of its own: the reader's and the tables' Python parts hold the GIL, so two threads
    kept only one core busy (benchmarks/RESULTS.md). The parent reports each trace as it is
    done; a worker that fails stops the others, one that dies is named."""
    ctx = multiprocessing.get_context("spawn")  # no inherited locks or threads
    todo: Any = ctx.Queue()
    events: Any = ctx.Queue()
    for item in items:
        todo.put(item)
    for _ in range(n):
        todo.put(None)
    procs = [
        ctx.Process(
            target=_worker,
            args=(writer.staging, f"{writer.name}-{w}", todo, events, reading),
            daemon=True,
        )
        for w in range(n)
    ]
    for proc in procs:
        proc.start()
    written: list[Path] = []
    done = 0
    try:
        while done < n:
            try:
                kind, *what = events.get(timeout=1.0)
            except queue.Empty:
                dead = [p for p in procs if p.exitcode not in (None, 0)]
                if dead:
                    raise RuntimeError(
                        f"a dataset worker died (exit status {dead[0].exitcode})"
                    ) from None
                continue
            if kind == "one":
                trace_id, name, failed = what
                if failed is None:
                    report.added.append((trace_id, name))
                else:
                    report.failed.append((trace_id, name, failed))
                if progress is not None:
                    progress(name, failed or "added")
            elif kind == "done":
                written += what[0]
                done += 1
            else:  # "error": the worker's exception, as text
                raise RuntimeError(f"a dataset worker failed: {what[0]}")
    finally:
        for proc in procs:
            if proc.is_alive() and done < n:
                proc.terminate()
            proc.join()
    return [(p, p) for p in written]


def _worker(
    staging: Path,
    name: str,
    todo: Any,
    events: Any,
    reading: Reading,
) -> None:
    """A worker process of `_write_in_processes`: traces from `todo` (None: no more) into
    part files `name`; each outcome, then the parts written, or the error, to `events`."""
    parts = Parts(staging, name)
    try:
        while (item := todo.get()) is not None:
            ident, path, labels, mapping = item
            failed = _one(ident, path, labels, replace(reading, mapping=mapping), parts)
            events.put(("one", ident.trace_id, ident.name, failed))
        events.put(("done", parts.close()))
    except BaseException as exc:
        parts.abort()
        events.put(("error", printable(f"{type(exc).__name__}: {exc}")))


def _one(
    ident: Identity, path: Path, labels: labelling.Labels, reading: Reading, parts: Parts
) -> str | None:
    """Write one trace's tables (or its error row); the reason when it failed to read."""
    origin = Origin(ident.trace_id, ident.name, ident.size, trace_date(None, ident.mtime), labels)
    try:
        trace = load(
            path, max_size=reading.max_size, salvage=reading.salvage, process=reading.process
        )
        origin = replace(origin, date=trace_date(trace.header, ident.mtime))
        if trace.header.axis != "time":
            raise ValueError("it records no times (an all-methods dump): nothing to measure")
        session = Session(trace)
        rename = reading.rename
        if reading.mapping is not None:
            classes = {c.replace("/", ".") for c in trace.methods.class_name}
            rename = MappingRename(read_mapping(reading.mapping, classes))
        view = View(session, session.query(rename=rename))
        small, calls = trace_tables(view, origin)
    except (TraceError, OSError, MemoryError, ValueError) as exc:
        parts.add("errors", where(origin), error_row(origin, reason(exc)))
        return reason(exc)
    at = where(origin)
    for name, table in small.items():
        parts.add(name, at, table)
    for piece in calls:  # a failure here is a bug or the machine's: the job stops
        parts.add("calls", at, piece)
    return None


def where(origin: Origin) -> tuple[str, str, str]:
    """The partition (app, build, date) of a trace."""
    return origin.app, origin.build, origin.date


def error_row(origin: Origin, why: str) -> Any:
    """The errors table's row for a trace that failed to read."""
    import numpy as np

    def text(value: str | None) -> Any:
        out = np.empty(1, dtype=object)
        out[0] = value
        return out

    row = Table(
        {
            "name": text(origin.name),
            "app": text(origin.app),
            "build": text(origin.build),
            "date": text(origin.date),
            "reason": text(why),
            "size": None if origin.size is None else np.array([origin.size], dtype=np.int64),
            "layout": np.array([VERSION], dtype=np.int32),
        },
        1,
    )
    return to_arrow("errors", row, origin.trace_id)


def reason(exc: BaseException) -> str:
    """The one line saying why a trace could not be read (without the file's path: the
    same reason whichever machine read it)."""
    if isinstance(exc, MemoryError):
        return "out of memory while reading the trace"
    if isinstance(exc, OSError):
        return printable(exc.strerror or str(exc))
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    path = getattr(exc, "path", None)
    if path and text.startswith(f"{path}: "):
        text = text[len(path) + 2 :]
    return printable(text)


__all__ = ["Reading", "Report", "Source", "add", "error_row", "reason", "where"]
