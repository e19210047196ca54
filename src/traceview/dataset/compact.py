"""Small part files merged into bigger ones: a dataset that grows a trace at a time (a CI job
per build, the service's uploads) would otherwise gain a part per table at every add — 1,800
files after 300 adds, and queries that open each of them (benchmarks/RESULTS.md).

`compact(root, folders, everything)` merges, in each partition folder of each table, the
parts under `SMALL_PART` bytes: all of them (`traceview dataset compact`), or after an add
only the size tiers holding `FANIN` parts or more (tiers of ×`FANIN` sizes, so a row is
written again O(log n) times as a dataset grows, never once per add). The merge streams: each
source is read a row group at a time in its rows' order (`SORT_KEYS`, trace first), and the
traces are written in `trace_id` order into the compactor's own parts (`dataset/parts.py`).
The merged parts replace their sources in one publication (`dataset/publish.py`), made only
if no source changed meanwhile (another compactor took it, `dataset rm` rewrote it): the same
rows stay visible, in fewer files.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from traceview.api.schema import SORT_KEYS
from traceview.api.table import optional
from traceview.dataset.layout import ALL_TABLES, check, file_schema, table_files
from traceview.dataset.parts import Parts
from traceview.dataset.publish import Writer, locked, recover
from traceview.model import printable
from traceview.readers.files import stamp

SMALL_PART = 128 << 20  # bytes: a part this size or larger is left as it is
FANIN = 8  # parts of one size tier merged at once after an add
TIER_BASE = 64 << 10  # bytes: tier 0 holds the parts under TIER_BASE * FANIN
WHAT = "a traceview dataset"


@dataclass
class Compaction:
    """What a compaction did: `merged` parts fewer; `skipped` (folder, reason) for each set of
    parts it could not merge (a part that does not read: left as it is, the rest goes on)."""

    merged: int = 0
    skipped: list[tuple[Path, str]] = field(default_factory=list)


def compact(
    root: Path, folders: Iterable[Path] | None = None, everything: bool = True
) -> Compaction:
    """Merge the small parts of `folders` (partition folders relative to ROOT, default
    every one of every table): all of them with `everything`, else the tiers of `FANIN`
    parts or more."""
    check(root)
    chosen = _folders(root) if folders is None else sorted(set(folders))
    done = Compaction()
    for folder in chosen:
        for group in _groups(root, folder, everything):
            try:
                done.merged += _merge(root, folder, group)
            except (OSError, ValueError, TypeError) as exc:  # pyarrow's errors among them
                first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                done.skipped.append((folder, printable(first)))
    return done


def _folders(root: Path) -> list[Path]:
    """Every partition folder holding a part of any table (relative to ROOT)."""
    found = {f.parent.relative_to(root) for t in ALL_TABLES for f in table_files(root, t)}
    return sorted(found)


def _groups(root: Path, folder: Path, everything: bool) -> list[list[Path]]:
    """The sets of small parts in `folder` to merge, each into one part."""
    if folder.parts[0] not in ALL_TABLES:
        return []
    sizes = {}
    for f in (root / folder).glob("*.parquet"):  # this folder's parts only: no tree walk
        if not f.name.startswith(("_", ".")):
            size = f.stat().st_size
            if size < SMALL_PART:
                sizes[f] = size
    if everything:
        return [sorted(sizes)] if len(sizes) > 1 else []
    tiers: dict[int, list[Path]] = {}
    for f, size in sizes.items():
        tiers.setdefault(tier(size), []).append(f)
    return [sorted(fs) for _, fs in sorted(tiers.items()) if len(fs) >= FANIN]


def tier(size: int) -> int:
    """The size tier of a part of `size` bytes: 0 under TIER_BASE * FANIN, then one more
    for each ×FANIN."""
    return max(0, int(math.log(max(size, 1) / TIER_BASE, FANIN)))


def _merge(root: Path, folder: Path, sources: list[Path]) -> int:
    """Merge `sources` (parts of one partition folder) into the fewest parts and publish
    them in their place; the parts merged away (0 when a source changed meanwhile)."""
    table = folder.parts[0]
    stamps = {f: stamp(f) for f in sources}
    with Writer(root) as writer:
        parts = Parts(writer.staging, f"{writer.name}-c")
        try:
            where = _partition(folder)
            for piece in _merged(table, sources):
                parts.add(table, where, piece)
            written = parts.close()
        except BaseException:
            parts.abort()
            raise
        with locked(root):
            recover(root)
            if any(stamp(f) != stamps[f] for f in sources):
                return 0  # taken by another compactor, or rewritten by `rm`: left as it is
            deletes = [f.relative_to(root) for f in sources]
            writer.publish([(p, p) for p in written], deletes, ())
    return len(sources) - len(written)


def _partition(folder: Path) -> tuple[str, str, str]:
    """(app, build, date) of a partition folder `<table>/app=…/build=…/date=…`."""
    values = [p.split("=", 1)[1] for p in folder.parts[1:4]]
    return values[0], values[1], values[2]


def _merged(table: str, sources: list[Path]) -> Iterable[Any]:
    """The rows of `sources` (each sorted by the table's keys) in the table's key order:
    trace after trace by `trace_id`, each trace's rows as its source holds them (sorted again
    when they come in several runs: a trace split between parts)."""
    schema = file_schema(table, dictionary_id=True)
    readers = [_Rows(f, schema) for f in sources]
    runs = sorted((tid, i, a, b) for i, r in enumerate(readers) for tid, a, b in r.runs())
    keys = [(k, "ascending") for k in SORT_KEYS[table][1:]]  # within one trace
    at = 0
    while at < len(runs):
        tid = runs[at][0]
        end = at
        while end < len(runs) and runs[end][0] == tid:
            end += 1
        pieces = [p for _, i, a, b in runs[at:end] for p in readers[i].take(a, b)]
        if keys and end - at > 1:  # a trace in several runs (parts): its rows sorted again
            pa = optional("pyarrow", WHAT)
            yield pa.concat_tables(pieces).sort_by(keys)
        else:
            yield from pieces
        at = end


class _Rows:
    """One source part, read a row group at a time as its rows are taken in order."""

    def __init__(self, path: Path, schema: Any) -> None:
        pq = optional("pyarrow.parquet", WHAT)
        self.file = pq.ParquetFile(path, read_dictionary=["trace_id"])
        self.schema = schema
        meta = self.file.metadata
        self.starts = [0]
        for g in range(meta.num_row_groups):
            self.starts.append(self.starts[-1] + meta.row_group(g).num_rows)
        self.group, self.rows = -1, None

    def runs(self) -> list[tuple[str, int, int]]:
        """(trace_id, first row, end row) of each run of one trace, in row order."""
        out: list[tuple[str, int, int]] = []
        for g in range(len(self.starts) - 1):
            ids = self.file.read_row_group(g, columns=["trace_id"]).column(0).combine_chunks()
            index = ids.indices.to_numpy(zero_copy_only=False)
            if not len(index):  # an empty row group (another writer's)
                continue
            begins = np.flatnonzero(np.diff(index)) + 1
            firsts = [0, *begins.tolist()]
            ends = [*begins.tolist(), len(index)]
            names = ids.dictionary.take(index[firsts]).to_pylist()
            for name, a, b in zip(names, firsts, ends, strict=True):
                a, b = a + self.starts[g], b + self.starts[g]
                if out and out[-1][0] == name and out[-1][2] == a:
                    out[-1] = (name, out[-1][1], b)  # a run going on into this row group
                else:
                    out.append((name, a, b))
        return out

    def take(self, start: int, stop: int) -> list[Any]:
        """Rows `[start, stop)` (taken in increasing order) as slices of their row groups."""
        out: list[Any] = []
        while start < stop:
            g = bisect.bisect_right(self.starts, start) - 1
            if g != self.group:
                self.group = g
                self.rows = self.file.read_row_group(g).cast(self.schema)
            assert self.rows is not None
            hi = min(stop, self.starts[g + 1])
            out.append(self.rows.slice(start - self.starts[g], hi - start))
            start = hi
        return out


__all__ = ["FANIN", "SMALL_PART", "Compaction", "compact", "tier"]
