"""Small generated traces as files, and a dataset's tables read back in a canonical order
(the tests of `traceview dataset`, `sql --dataset`, `diff --dataset` and the Spark ingest)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from traceview.api.schema import SORT_KEYS
from traceview.synth import generate
from traceview.writer import write


def write_traces(
    folder: Path, seeds: list[int], records: int = 3000, threads: int = 2, **kw: Any
) -> list[Path]:
    """One generated trace file per seed in `folder` (`gen-<seed>.trace`)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for seed in seeds:
        path = folder / f"gen-{seed}.trace"
        if not path.exists():
            write(generate(records=records, threads=threads, seed=seed, **kw), str(path))
        out.append(path)
    return out


def read_tables(root: Path) -> dict[str, Any]:
    """Every table of the dataset at `root` as one pyarrow table, columns by name, rows in
    its sort order (partitions first), so two writers' datasets compare with `equals`."""
    from traceview.dataset.layout import ALL_TABLES, PARTITIONS
    from traceview.dataset.read import arrow_dataset

    out = {}
    for table in ALL_TABLES:
        t = arrow_dataset(root, table).to_table()
        t = t.select(sorted(t.column_names))
        keys = [*SORT_KEYS[table], *PARTITIONS]
        out[table] = t.sort_by([(k, "ascending") for k in keys]) if t.num_rows else t
    return out
