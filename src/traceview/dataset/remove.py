"""`remove(root, ids)`: traces out of a dataset — every part holding a row of them is written
again without those rows (or deleted when nothing is left), then all the replacements are
published at once under the dataset's lock (`dataset/publish.py`), so readers see the trace
in every table or in none.

The lock is held for the whole removal (other writers wait to publish; their staging goes
on): parts are read whole only when their `trace_id` column holds one of the ids. `without`
is the same rewrite for a writer that publishes it with parts of its own (`add(replacing=True)`:
a trace's rows replaced in one publication).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from traceview.api.table import optional
from traceview.dataset.layout import ALL_TABLES, check, file_schema, table_files
from traceview.dataset.publish import Writer, locked, recover
from traceview.dataset.read import resolve
from traceview.exporters.parquet import ROW_GROUP, writer_options

WHAT = "a traceview dataset"
Move = tuple[Path, Path]  # a staged file and its place


def remove(root: Path, given: Sequence[str]) -> list[str]:
    """Remove the traces `given` (ids or 8+ hex digit prefixes) from every table; the ids
    removed. ValueError for an id naming no trace or several."""
    check(root)
    with Writer(root) as writer, locked(root):
        recover(root)
        ids = resolve(root, given)
        moves, deletes = without(root, writer, ids)
        writer.publish(moves, deletes, ())
    return ids


def without(root: Path, writer: Writer, ids: Sequence[str]) -> tuple[list[Move], list[Path]]:
    """Every published part holding a row of the traces `ids`, written again without those
    rows into `writer`'s staging folder: the (staged, published) moves and the parts to
    delete (left empty) for `writer.publish` (call under `locked`)."""
    pa = optional("pyarrow", WHAT)
    pc = optional("pyarrow.compute", WHAT)
    pq = optional("pyarrow.parquet", WHAT)
    drop = pa.array(list(ids), pa.string())
    moves: list[Move] = []
    deletes: list[Path] = []
    if not ids:
        return moves, deletes
    for table in ALL_TABLES:
        for f in table_files(root, table):
            found = pq.ParquetFile(f).read(columns=["trace_id"]).column(0)
            hit = pc.is_in(found, value_set=drop)
            if not pc.any(hit).as_py():
                continue
            rel = f.relative_to(root)
            kept = pq.ParquetFile(f).read().filter(pc.invert(hit))
            if kept.num_rows == 0:
                deletes.append(rel)
                continue
            staged = writer.staging / rel
            staged.parent.mkdir(parents=True, exist_ok=True)
            schema = file_schema(table)
            with pq.ParquetWriter(staged, schema, **writer_options(schema)) as w:
                w.write_table(kept, row_group_size=ROW_GROUP)
            moves.append((rel, rel))
    return moves, deletes


__all__ = ["remove", "without"]
