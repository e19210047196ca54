"""The columns of every table written as Parquet (the `parquet` export, `traceview sql`'s
cache, the dataset of `traceview dataset` and its Spark ingest), named and typed once.

Types are only `int32`, `int64`, `double`, `bool` and `string` (never unsigned: Spark reads
UINT_64 as decimal(20,0) and Trino does not map it), so DuckDB, Spark, Trino, BigQuery and
pyarrow read the files unchanged. Every table starts with `trace_id` (the SHA-256 of the
trace's bytes, hex); `api/tables.py` builds the rest of each row from a `View` and
`exporters/parquet.py` adds the `trace_id` column when writing. `LAYOUT` is the version of
this layout (docs/tables.md, docs/dataset.md): any added, changed or removed column bumps it.
"""

from __future__ import annotations

LAYOUT = 2
TYPES = ("int32", "int64", "double", "bool", "string")
Columns = tuple[tuple[str, str], ...]

_TIMES = tuple(
    (f"{k}_{c}_ns", "int64") for c in ("cpu", "wall") for k in ("start", "end", "incl", "excl")
)

COLUMNS: dict[str, Columns] = {
    "traces": (
        ("trace_id", "string"),
        ("name", "string"),
        ("app", "string"),
        ("build", "string"),
        ("date", "string"),
        ("branch", "string"),
        ("device", "string"),
        ("labels", "string"),
        ("variant", "string"),
        ("version", "int32"),
        ("clocks", "string"),
        ("clock", "string"),
        ("sampled", "bool"),
        ("overflow", "bool"),
        ("pid", "int64"),
        ("start_ns", "int64"),
        ("duration_ns", "int64"),
        ("records", "int64"),
        ("calls", "int64"),
        ("size", "int64"),
        ("layout", "int32"),
    ),
    "threads": (
        ("trace_id", "string"),
        ("thread", "int32"),
        ("id", "int64"),
        ("name", "string"),
        ("label", "string"),
        ("main", "bool"),
        ("selected", "bool"),
        ("calls", "int64"),
        ("total_cpu_ns", "int64"),
        ("total_wall_ns", "int64"),
    ),
    "methods": (
        ("trace_id", "string"),
        ("method", "int32"),
        ("method_key", "int64"),
        ("id", "int64"),
        ("class_name", "string"),
        ("name", "string"),
        ("signature", "string"),
        ("source_file", "string"),
        ("line", "int32"),
        ("label", "string"),
        ("declared", "bool"),
    ),
    "calls": (
        ("trace_id", "string"),
        ("thread", "int32"),
        ("call", "int64"),
        ("parent", "int64"),
        ("depth", "int32"),
        ("method", "int32"),
        ("subtree_end", "int64"),
        ("recursive", "bool"),
        ("flags", "int32"),
        *_TIMES,
    ),
    "edges": (
        ("trace_id", "string"),
        ("thread", "int32"),
        ("caller", "int32"),
        ("callee", "int32"),
        ("caller_recursive", "bool"),
        ("callee_recursive", "bool"),
        ("calls", "int64"),
        ("incl_cpu_ns", "int64"),
        ("incl_wall_ns", "int64"),
    ),
    "profile": (
        ("trace_id", "string"),
        ("thread", "int32"),
        ("method", "int32"),
        ("method_key", "int64"),
        ("calls", "int64"),
        ("recursive_calls", "int64"),
        ("incl_cpu_ns", "int64"),
        ("excl_cpu_ns", "int64"),
        ("incl_wall_ns", "int64"),
        ("excl_wall_ns", "int64"),
    ),
    # a dataset's traces that failed to read (`traceview dataset add`, the Spark ingest)
    "errors": (
        ("trace_id", "string"),
        ("name", "string"),
        ("app", "string"),
        ("build", "string"),
        ("date", "string"),
        ("reason", "string"),
        ("size", "int64"),
        ("layout", "int32"),
    ),
}
TABLES = ("traces", "threads", "methods", "calls", "edges", "profile")  # of one trace, in order
# the order of each table's rows: a writer keeps it, a reader may rely on it
SORT_KEYS: dict[str, tuple[str, ...]] = {
    "traces": ("trace_id",),
    "threads": ("trace_id", "thread"),
    "methods": ("trace_id", "method"),
    "calls": ("trace_id", "thread", "call"),
    "edges": ("trace_id", "thread", "caller", "caller_recursive", "callee", "callee_recursive"),
    "profile": ("trace_id", "thread", "method"),
    "errors": ("trace_id",),
}


def names(table: str) -> tuple[str, ...]:
    """The column names of `table`, in order."""
    return tuple(name for name, _ in COLUMNS[table])


__all__ = ["COLUMNS", "LAYOUT", "SORT_KEYS", "TABLES", "TYPES", "Columns", "names"]
