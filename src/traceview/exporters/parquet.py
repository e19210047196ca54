"""The `parquet` exporter (pyarrow, the `data` extra): the selection's calls, methods and threads
as Parquet tables, the interchange for DuckDB, Spark, Trino, BigQuery and pandas.

`write_directory(view, path)` writes `path/calls.parquet`, `path/methods.parquet` and
`path/threads.parquet` (a directory per trace, like Spark's `x.parquet/`). The column names
and types are stable and documented in docs/formats.md; times are int64 ns from the trace's
start (the timeline origin for its clock, the least time for the other), clipped to the
query's time range; a clock the trace lacks is a column of nulls. Names are kept exactly
(undecodable bytes as `\\xNN`). As a stream exporter (`export`) it writes the calls table
alone.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import IO, Any

import numpy as np

from traceview.analysis.profile import sum_by
from traceview.analysis.view import View
from traceview.exporters import Exporter, Options
from traceview.exporters.stacks import origins, thread_calls
from traceview.model import visible

CLOCKS = ("cpu", "wall")
VERSION = 1  # of the column layout (docs/formats.md); bumped when a column changes


class MissingPyarrow(RuntimeError):
    """pyarrow is not installed (the `data` extra)."""


def _arrow() -> Any:
    """pyarrow with its compute and parquet modules loaded (an optional dependency, so it is
    imported by name: `MissingPyarrow` says how to install it)."""
    try:
        pa = import_module("pyarrow")
        import_module("pyarrow.compute")
        import_module("pyarrow.parquet")
    except ImportError:
        raise MissingPyarrow(
            "Parquet export needs pyarrow: pip install 'traceview[data]'"
        ) from None
    return pa


def calls_table(view: View) -> Any:
    """One row per call of the selection, in pre-order per thread."""
    pa = _arrow()
    zero = origins(view)
    cols: dict[str, list[Any]] = {
        k: [] for k in ("thread", "call", "parent", "depth", "method", "subtree_end")
    }
    times: dict[str, list[Any]] = {
        f"{w}_{c}_ns": [] for c in CLOCKS for w in ("start", "end", "excl")
    }
    for part in thread_calls(view):
        n = len(part)
        rows = np.arange(n, dtype=np.int64)
        cols["thread"].append(np.full(n, part.thread, dtype=np.int32))
        cols["call"].append(rows)
        parent = part.parent
        cols["parent"].append(parent)
        has = parent >= 0
        cols["depth"].append(part.depth.astype(np.int32))
        cols["method"].append(part.method.astype(np.int32))
        cols["subtree_end"].append(part.subtree_end)
        for c in CLOCKS:
            if c in part.start:
                incl = part.end[c] - part.start[c]
                child = sum_by(parent[has], incl[has], n)
                times[f"start_{c}_ns"].append(part.start[c] - zero[c])
                times[f"end_{c}_ns"].append(part.end[c] - zero[c])
                times[f"excl_{c}_ns"].append(incl - child)
            else:
                for w in ("start", "end", "excl"):
                    times[f"{w}_{c}_ns"].append(None)
    arrays = {
        k: _cat(v, np.int32 if k in ("thread", "depth", "method") else np.int64)
        for k, v in cols.items()
    }
    n = len(arrays["call"])
    out = {k: pa.array(v) for k, v in arrays.items()}
    for c in CLOCKS:
        for w in ("start", "end", "excl"):
            parts = times[f"{w}_{c}_ns"]
            if parts and all(p is not None for p in parts):
                out[f"{w}_{c}_ns"] = pa.array(_cat(parts, np.int64))
            else:
                out[f"{w}_{c}_ns"] = pa.nulls(n, pa.int64())
    for c in CLOCKS:
        s, e = out[f"start_{c}_ns"], out[f"end_{c}_ns"]
        out[f"incl_{c}_ns"] = pa.compute.subtract(e, s)
    order = ["thread", "call", "parent", "depth", "method", "subtree_end"]
    order += [f"{w}_{c}_ns" for c in CLOCKS for w in ("start", "end")]
    order += [f"{w}_{c}_ns" for w in ("incl", "excl") for c in CLOCKS]
    return pa.table({k: out[k] for k in order})


def _cat(parts: list[Any], dtype: Any) -> Any:
    return np.concatenate(parts).astype(dtype, copy=False) if parts else np.zeros(0, dtype=dtype)


def methods_table(view: View) -> Any:
    """One row per method of the trace (as shown: renamed when the query renames)."""
    pa = _arrow()
    m = view.methods
    n = len(m)
    return pa.table(
        {
            "method": pa.array(np.arange(n, dtype=np.int32)),
            "id": pa.array(m.id.astype(np.uint64)),
            "class_name": pa.array([visible(x) for x in m.class_name], pa.string()),
            "name": pa.array([visible(x) for x in m.name], pa.string()),
            "signature": pa.array([visible(x) for x in m.signature], pa.string()),
            "source_file": pa.array([visible(x) for x in m.source_file], pa.string()),
            "line": pa.array(m.line.astype(np.int32)),
            "label": pa.array([visible(m.label(i)) for i in range(n)], pa.string()),
            "declared": pa.array(m.declared.astype(bool)),
        }
    )


def threads_table(view: View) -> Any:
    """One row per thread of the trace, with its calls and totals in the selection."""
    pa = _arrow()
    th = view.trace.threads
    n = len(th)
    prof = view.profile()
    total: dict[str, Any] = {c: np.zeros(n, dtype=np.int64) for c in CLOCKS}
    selected = np.zeros(n, dtype=bool)
    selected[list(prof.threads)] = True
    cols: dict[str, Any] = {
        "thread": pa.array(np.arange(n, dtype=np.int32)),
        "id": pa.array(th.id.astype(np.int64)),
        "name": pa.array([None if x is None else visible(x) for x in th.name], pa.string()),
        "label": pa.array([visible(th.label(i)) for i in range(n)], pa.string()),
        "selected": pa.array(selected),
    }
    for c in CLOCKS:
        if c in prof.thread_total:
            total[c][list(prof.threads)] = prof.thread_total[c]
            cols[f"total_{c}_ns"] = pa.array(np.where(selected, total[c], 0))
        else:
            cols[f"total_{c}_ns"] = pa.nulls(n, pa.int64())
    return pa.table(cols)


def _metadata(view: View) -> dict[bytes, bytes]:
    q = view.query
    meta = {
        "traceview.layout": str(VERSION),
        "traceview.clock": q.clock,
        "traceview.clocks": ",".join(view.session.clocks),
        "traceview.sampled": str(bool(view.trace.header.sampled)).lower(),
    }
    if q.time_range is not None:
        zero = origins(view)[q.time_range.clock]
        meta["traceview.range_ns"] = f"{q.time_range.lo - zero},{q.time_range.hi - zero}"
    return {k.encode(): v.encode() for k, v in meta.items()}


def _with_meta(table: Any, view: View) -> Any:
    return table.replace_schema_metadata({**(table.schema.metadata or {}), **_metadata(view)})


def write_directory(view: View, path: str | Path) -> None:
    """`path/{calls,methods,threads}.parquet` (the directory is created)."""
    pa = _arrow()
    pq = pa.parquet
    root = Path(path)
    root.mkdir(parents=True, exist_ok=True)
    for name, build in (
        ("calls", calls_table),
        ("methods", methods_table),
        ("threads", threads_table),
    ):
        tmp = root / f".{name}.parquet.tmp"
        pq.write_table(_with_meta(build(view), view), tmp, compression="zstd")
        tmp.replace(root / f"{name}.parquet")


def export_calls(view: View, out: IO[Any], options: Options) -> None:
    """The calls table as one Parquet file on a stream."""
    pa = _arrow()
    pa.parquet.write_table(_with_meta(calls_table(view), view), out, compression="zstd")


PARQUET = Exporter(
    "parquet",
    (".parquet",),
    True,
    "Parquet tables (calls, methods, threads) in a directory (needs pyarrow)",
    export_calls,
)

__all__ = ["PARQUET", "calls_table", "methods_table", "threads_table", "write_directory"]
