"""`Parts`: one writer's part files — per table and partition, the rows of the traces it adds,
appended in order into its own Parquet files in its staging folder.

Pieces smaller than a row group (the one-row traces table of a small trace) are held until
`ROW_GROUP` rows (or 64 MiB) are waiting, so a part of a thousand small traces has a few row
groups, not a thousand; a part is closed past `PART_BYTES` and the next one opened. Every
writer (a thread of `dataset add`, another process) has its own `Parts` with its own file
names, so nothing is shared while encoding: two writers take both cores.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from traceview.api.table import optional
from traceview.dataset.layout import PART_BYTES, PARTITIONS, file_schema, partition
from traceview.exporters.parquet import ROW_GROUP, writer_options

HELD_BYTES = 64 << 20  # rows held before a row group is written, at most
Partition = tuple[str, str, str]  # app, build, date


@dataclass
class _Open:
    """The rows held and the part file open for one table and partition."""

    held: list[Any] = field(default_factory=list)
    rows: int = 0
    nbytes: int = 0
    file: IO[bytes] | None = None
    writer: Any = None
    path: Path | None = None


class Parts:
    """Part files under `staging` named `part-<name>-<n>.parquet`; `written` lists them
    (relative to `staging`) once closed."""

    def __init__(self, staging: Path, name: str) -> None:
        self.staging = staging
        self.name = name
        self.written: list[Path] = []
        self._open: dict[tuple[str, Partition], _Open] = {}
        self._count = 0

    def add(self, table: str, where: Partition, piece: Any) -> None:
        """Append `piece` (a pyarrow table of `table`, partition columns or not) to the
        partition `where` (app, build, date)."""
        if not piece.num_rows:
            return
        keep = [c for c in piece.column_names if c not in PARTITIONS]
        piece = piece.select(keep)
        slot = self._open.setdefault((table, where), _Open())
        slot.held.append(piece)
        slot.rows += piece.num_rows
        slot.nbytes += piece.nbytes
        if slot.rows >= ROW_GROUP or slot.nbytes >= HELD_BYTES:
            self._flush(table, where, slot)

    def close(self) -> list[Path]:
        """Write what is held and close every part; the parts written."""
        for (table, where), slot in self._open.items():
            self._flush(table, where, slot)
            self._finish(slot)
        self._open.clear()
        return self.written

    def abort(self) -> None:
        """Close the files without finishing them (the staging folder is removed after)."""
        for slot in self._open.values():
            if slot.file is not None:
                slot.file.close()
        self._open.clear()

    def _flush(self, table: str, where: Partition, slot: _Open) -> None:
        if not slot.held:
            return
        pa = optional("pyarrow", "a traceview dataset")
        if slot.writer is None:
            self._start(table, where, slot)
        rows = pa.concat_tables(slot.held) if len(slot.held) > 1 else slot.held[0]
        slot.held, slot.rows, slot.nbytes = [], 0, 0
        slot.writer.write_table(rows, row_group_size=ROW_GROUP)
        assert slot.file is not None
        if slot.file.tell() >= PART_BYTES:
            self._finish(slot)

    def _start(self, table: str, where: Partition, slot: _Open) -> None:
        pq = optional("pyarrow.parquet", "a traceview dataset")
        folder = partition(table, *where)
        (self.staging / folder).mkdir(parents=True, exist_ok=True)
        slot.path = folder / f"part-{self.name}-{self._count:05d}.parquet"
        self._count += 1
        slot.file = (self.staging / slot.path).open("wb")
        schema = file_schema(table, dictionary_id=True)
        slot.writer = pq.ParquetWriter(slot.file, schema, **writer_options(schema))

    def _finish(self, slot: _Open) -> None:
        if slot.writer is None:
            return
        slot.writer.close()
        assert slot.file is not None and slot.path is not None
        slot.file.flush()
        os.fsync(slot.file.fileno())  # on disk before it can be published by a rename
        slot.file.close()
        self.written.append(slot.path)
        slot.writer = slot.file = slot.path = None


__all__ = ["Partition", "Parts"]
