"""Small part files merged (dataset/compact.py): a dataset grown one trace at a time keeps
few parts per partition, `traceview dataset compact` merges every small part, the rows stay
the same and sorted, and a source another writer changed meanwhile is left alone."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from support.datasets import read_tables, write_traces
from traceview.api.schema import SORT_KEYS
from traceview.cli import main
from traceview.dataset import compact as compacting
from traceview.dataset.add import add
from traceview.dataset.layout import ALL_TABLES, table_files
from traceview.dataset.parts import Parts

pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")
pq = pytest.importorskip("pyarrow.parquet")

LABELS = {"app": "com.example", "build": "100"}


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return write_traces(tmp_path_factory.mktemp("traces"), list(range(1, 21)), records=600)


@pytest.fixture(scope="module")
def whole(traces: list[Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("whole")
    add(root, traces, LABELS)
    return read_tables(root)


def folders(root: Path) -> dict[Path, int]:
    """Part files per partition folder of every table."""
    out: dict[Path, int] = {}
    for table in ALL_TABLES:
        for f in table_files(root, table):
            out[f.parent] = out.get(f.parent, 0) + 1
    return out


def sorted_parts(root: Path) -> None:
    for table in ALL_TABLES:
        for f in table_files(root, table):
            rows = pq.ParquetFile(f).read()
            assert rows.equals(rows.sort_by([(k, "ascending") for k in SORT_KEYS[table]])), f


def test_a_trace_at_a_time_keeps_few_parts(
    traces: list[Path], whole: dict[str, object], tmp_path: Path
) -> None:
    """20 adds of one trace each left 20 parts in every table's partition (one per add),
    each opened by every query; the tiers now merge them as they gather."""
    root = tmp_path / "ds"
    for trace in traces:
        add(root, [trace], LABELS, workers=1)
    counts = folders(root)
    assert counts and max(counts.values()) < compacting.FANIN, counts
    got = read_tables(root)
    assert all(got[t].equals(whole[t]) for t in whole)
    sorted_parts(root)


def test_compact_merges_every_small_part_of_split_traces(
    traces: list[Path], whole: dict[str, object], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Parts closed after every row group (a trace's rows spread over many) become one part
    per table and partition, its rows those of the dataset written whole, in key order."""
    from traceview.dataset import parts

    root = tmp_path / "ds"
    with monkeypatch.context() as m:
        m.setattr(parts, "PART_BYTES", 1)
        m.setattr(parts, "ROW_GROUP", 100)
        add(root, traces[:10], LABELS, workers=2)
        add(root, traces[10:], LABELS, workers=2)
    assert max(folders(root).values()) > 2
    assert main(["dataset", "compact", str(root)]) == 0
    assert set(folders(root).values()) == {1}
    got = read_tables(root)
    assert all(got[t].equals(whole[t]) for t in whole)
    sorted_parts(root)
    assert main(["dataset", "compact", str(root)]) == 0  # nothing left to merge


def test_a_source_rewritten_meanwhile_is_left_alone(
    traces: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`dataset rm` rewrites a part while a compactor reads it: the compactor's merge, which
    still holds the removed trace, is not published."""
    from traceview.dataset.remove import remove

    root = tmp_path / "ds"
    for trace in traces[:4]:
        add(root, [trace], LABELS, workers=1)
    gone = read_tables(root)["traces"].column("trace_id")[0].as_py()
    raced: list[Path] = []

    class Racing(Parts):
        def close(self) -> list[Path]:
            written = super().close()
            if not raced:  # the first merge (the calls table's), between it and publishing
                raced.append(self.staging)
                remove(root, [gone])  # each trace had a part of its own: 3 are left
            return written

    monkeypatch.setattr(compacting, "Parts", Racing)
    compacting.compact(root)
    counts = {f.relative_to(root).parts[0]: n for f, n in folders(root).items()}
    assert counts.pop("calls") == 3  # not merged: its merge still held the removed rows
    assert set(counts.values()) == {1}  # the others merged after the removal
    for table, rows in read_tables(root).items():
        ids = set(rows.column("trace_id").to_pylist())
        assert gone not in ids and (table == "errors" or len(ids) == 3), table


def test_tiers_grow_by_fanin() -> None:
    base, fan = compacting.TIER_BASE, compacting.FANIN
    assert compacting.tier(0) == compacting.tier(base * fan - 1) == 0
    assert compacting.tier(base * fan) == 1
    assert compacting.tier(base * fan**2) == 2


def test_compact_of_no_dataset_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["dataset", "compact", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no such dataset" in err[0]


def test_a_part_that_does_not_read_is_left_and_the_add_goes_on(
    traces: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A damaged small part (here: one of the calls table's, cut short) stops the merging of
    its tier in its folder only: the adds still succeed and say so in one line each, the other
    tables are merged, and `dataset compact` names the folder and exits with 2."""
    root = tmp_path / "ds"
    for trace in traces[:3]:
        add(root, [trace], LABELS, workers=1)
    bad = table_files(root, "calls")[0]
    bad.write_bytes(bad.read_bytes()[:100])
    capsys.readouterr()
    labels = ["--app", "com.example", "--build", "100"]
    for trace in traces[3 : compacting.FANIN]:
        assert main(["dataset", "add", str(root), str(trace), "-q", *labels]) == 0
    err = capsys.readouterr().err
    assert "small parts left unmerged" in err and "calls" in err
    counts = {f.relative_to(root).parts[0]: n for f, n in folders(root).items()}
    assert counts.pop("calls") == compacting.FANIN and set(counts.values()) == {1}
    assert main(["dataset", "compact", str(root)]) == 2
    lines = [x for x in capsys.readouterr().err.splitlines() if "unmerged" in x]
    assert len(lines) == 1 and str(bad.parent) in lines[0]


def test_every_corpus_file_added_one_at_a_time_then_compacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each file of ../shared/corpus added by an add of its own (tiers of 2 parts here, so the
    merging runs between adds), then `dataset compact`: every add ends with 0 or 2 (a file
    that fails to read is an errors row, or one line when it cannot be opened), the merging
    never fails, every file is listed once, and the rows stay sorted."""
    from support.corpus import corpus_files

    files = corpus_files()
    if not files:
        pytest.skip("../shared/corpus not available")
    monkeypatch.setattr(compacting, "FANIN", 2)
    root = tmp_path / "ds"
    labels = ["--app", "corpus", "--build", "1"]
    for f in files:
        capsys.readouterr()
        assert main(["dataset", "add", str(root), str(f), "-q", *labels]) in (0, 2), f
        err = capsys.readouterr().err
        assert "unmerged" not in err and "Traceback" not in err, (f, err)
    assert main(["dataset", "compact", str(root)]) == 0
    tables = read_tables(root)
    ids = [*tables["traces"].column("trace_id").to_pylist()]
    ids += tables["errors"].column("trace_id").to_pylist()
    want = {hashlib.sha256(f.read_bytes()).hexdigest() for f in files}  # docs/dataset.md's id
    assert len(ids) == len(set(ids)) and set(ids) == want
    assert set(folders(root).values()) == {1}
    sorted_parts(root)
