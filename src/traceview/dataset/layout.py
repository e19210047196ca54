"""The dataset's layout (docs/dataset.md): where each table's part files go, what their files
hold, and the layout version a dataset was written with.

    ROOT/_traceview_dataset.json                 {"format": "traceview-dataset", "layout": N}
    ROOT/<table>/app=<app>/build=<build>/date=<yyyy-mm-dd>/part-<writer>-<n>.parquet

Tables: `traces`, `threads`, `methods`, `calls`, `edges`, `profile` (columns: `api/schema.py`,
docs/tables.md) and `errors` (traces that failed to read, with the reason). `app`, `build`
and `date` are hive partitions: they are in the folder names, not in the files (as Spark's
`partitionBy` writes them), and read back as strings. Folders starting with `_` or `.` are
not tables (`_staging`, `_claims`: a writer's work, never read).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from traceview.api.schema import COLUMNS, LAYOUT, TABLES, Columns
from traceview.api.table import optional
from traceview.exporters.parquet import arrow_schema

VERSION = LAYOUT
ALL_TABLES = (*TABLES, "errors")
PARTITIONS = ("app", "build", "date")
MARKER = "_traceview_dataset.json"
PART_BYTES = 512 << 20  # a part file is closed past this size (parts of 128 MB - 1 GB)


class DatasetError(ValueError):
    """A dataset this traceview cannot use (a newer layout, not a dataset): one line."""


def file_columns(table: str) -> Columns:
    """The columns `table`'s files hold (all but the partitions)."""
    return tuple((n, t) for n, t in COLUMNS[table] if n not in PARTITIONS)


def file_schema(table: str, dictionary_id: bool = False) -> Any:
    """The pyarrow schema of `table`'s files (`dictionary_id`: `trace_id` as the writers hold
    it)."""
    pa = optional("pyarrow", "a traceview dataset")
    return pa.schema([f for f in arrow_schema(table, dictionary_id) if f.name not in PARTITIONS])


def read_schema(table: str) -> Any:
    """The pyarrow schema of `table` as read: its files' columns, then the partitions."""
    pa = optional("pyarrow", "a traceview dataset")
    files = file_schema(table)
    return pa.schema([*files, *(pa.field(p, pa.string()) for p in PARTITIONS)])


def partition(table: str, app: str, build: str, date: str) -> Path:
    """The folder of `table`'s parts for one app, build and day (relative to ROOT)."""
    return Path(table) / f"app={app}" / f"build={build}" / f"date={date}"


def check(root: Path, create: bool = False) -> None:
    """Refuse, in one line, a dataset of a newer layout than this traceview writes (or a
    marker that is not ours); with `create`, make ROOT and its marker when missing."""
    marker = root / MARKER
    try:
        text = marker.read_text(encoding="utf-8")
    except FileNotFoundError:
        if not create:
            if not root.is_dir():
                raise DatasetError(f"{root}: no such dataset") from None
            return  # an empty folder, or a dataset Spark wrote without the marker
        root.mkdir(parents=True, exist_ok=True)
        tmp = root / f".{MARKER}.{os.getpid()}"
        tmp.write_text(json.dumps({"format": "traceview-dataset", "layout": VERSION}) + "\n")
        tmp.replace(marker)
        return
    try:
        found = json.loads(text)
        version = int(found["layout"])
    except (ValueError, KeyError, TypeError):
        raise DatasetError(f"{marker}: not a traceview dataset marker") from None
    if version > VERSION:
        raise DatasetError(
            f"{root}: a dataset of layout {version}; this traceview reads layout {VERSION}: "
            "upgrade traceview"
        )
    if version < VERSION:
        raise DatasetError(
            f"{root}: a dataset of layout {version}; this traceview writes layout {VERSION}: "
            "add its traces again into a new dataset"
        )


def table_files(root: Path, table: str) -> list[Path]:
    """The published part files of `table`, sorted."""
    folder = root / table
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.rglob("*.parquet") if not _hidden(p.relative_to(folder)))


def _hidden(relative: Path) -> bool:
    return any(part.startswith(("_", ".")) for part in relative.parts)


__all__ = [
    "ALL_TABLES",
    "MARKER",
    "PARTITIONS",
    "PART_BYTES",
    "VERSION",
    "DatasetError",
    "check",
    "file_columns",
    "file_schema",
    "partition",
    "read_schema",
    "table_files",
]
