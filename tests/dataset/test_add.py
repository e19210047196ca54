"""`traceview dataset add|ls|rm` and `sql --dataset` (issue 21): the hive layout, an add that
is idempotent by trace id, a trace that fails to read recorded in the errors table while the
others go on, a newer layout refused in one line, labels checked, traces removed from every
table, and the dataset read by pyarrow.dataset and by DuckDB through `sql --dataset`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.datasets import read_tables, write_traces
from traceview.cli import main
from traceview.dataset.layout import MARKER, VERSION, table_files

pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")
ds = pytest.importorskip("pyarrow.dataset")


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return write_traces(tmp_path_factory.mktemp("traces"), [1, 2, 3])


def add(root: Path, *args: str | Path) -> int:
    return main(["dataset", "add", str(root), *map(str, args), "-q"])


def sql(root: Path, query: str, capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    capsys.readouterr()
    assert main(["sql", "--dataset", str(root), query, "--json"]) == 0
    rows: list[dict[str, object]] = json.loads(capsys.readouterr().out)
    return rows


def test_add_is_idempotent_and_laid_out_by_partition(
    traces: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "ds"
    assert add(root, *traces[:2], "--app", "com.example", "--build", "100") == 0
    assert add(root, *traces, "--app", "com.example", "--build", "100") == 0  # 2 known, 1 new
    assert "1 added" in capsys.readouterr().err
    once = read_tables(root)
    assert add(root, *traces, "--app", "com.example", "--build", "100") == 0
    err = capsys.readouterr().err
    assert "0 added" in err and "3 already there" in err
    again = read_tables(root)
    assert all(once[t].equals(again[t]) for t in once)
    assert once["traces"].num_rows == 3
    for f in table_files(root, "calls"):
        rel = f.relative_to(root / "calls").parts
        assert rel[0] == "app=com.example" and rel[1] == "build=100"
        assert rel[2].startswith("date=") and rel[3].startswith("part-")
    assert not any((root / "_staging").iterdir()) and not any((root / "_claims").iterdir())
    for table, t in once.items():  # every row names a trace of the traces table
        assert set(t.column("trace_id").to_pylist()) <= set(
            once["traces"].column("trace_id").to_pylist()
        ), table
    rows = sql(root, "SELECT app, build, count(*) AS n FROM traces GROUP BY ALL", capsys)
    assert rows == [{"app": "com.example", "build": "100", "n": 3}]  # partitions are strings


def test_parts_roll_over_and_keep_their_rows_sorted(
    traces: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A part is closed past `PART_BYTES` (here: after every row group) and the next opened;
    every part holds whole row groups in its table's key order."""
    from traceview.api.schema import SORT_KEYS
    from traceview.dataset import add as adding
    from traceview.dataset import parts

    whole = tmp_path / "whole"
    assert add(whole, *traces) == 0
    monkeypatch.setattr(parts, "PART_BYTES", 1)
    monkeypatch.setattr(parts, "ROW_GROUP", 1000)
    small = tmp_path / "small"
    adding.add(small, traces, workers=1)
    assert len(table_files(small, "calls")) > len(table_files(whole, "calls"))
    want, got = read_tables(whole), read_tables(small)
    assert all(got[t].equals(want[t]) for t in want)
    pq = pytest.importorskip("pyarrow.parquet")
    for table in ("calls", "edges", "profile", "methods"):
        for f in table_files(small, table):
            rows = pq.ParquetFile(f).read()
            assert rows.equals(rows.sort_by([(k, "ascending") for k in SORT_KEYS[table]])), f


def test_worker_processes_write_what_threads_write(
    traces: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past `PROCESS_BYTES` the traces are added by worker processes (two threads kept one
    core busy: the reader's Python parts hold the GIL): the same rows, failures recorded
    and reported as they come, nothing left staged."""
    from traceview.dataset import add as adding

    bad = tmp_path / "bad.trace"
    bad.write_bytes(b"SLOW" + b"\x00" * 40)
    one = tmp_path / "threads"
    adding.add(one, [*traces, bad], workers=1)
    monkeypatch.setattr(adding, "PROCESS_BYTES", 0)
    seen: list[tuple[str, str]] = []
    many = tmp_path / "processes"
    report = adding.add(many, [*traces, bad], workers=2, progress=lambda n, o: seen.append((n, o)))
    assert sorted(n for _, n in report.added) == sorted(p.name for p in traces)
    assert [f[1] for f in report.failed] == ["bad.trace"]
    assert sorted(n for n, _ in seen) == sorted([*(p.name for p in traces), "bad.trace"])
    want, got = read_tables(one), read_tables(many)
    assert all(got[t].sort_by("trace_id").equals(want[t].sort_by("trace_id")) for t in want)
    assert not any((many / "_staging").iterdir())


def test_a_trace_that_fails_is_an_error_row_and_the_rest_go_on(
    traces: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.trace"
    bad.write_bytes(b"SLOW" + b"\x00" * 40)
    root = tmp_path / "ds"
    assert add(root, traces[0], bad, tmp_path / "missing.trace", "--build", "7") == 2
    err = capsys.readouterr().err
    assert "1 added, 1 failed" in err and "missing.trace" in err and "1 unreadable" in err
    tables = read_tables(root)
    (row,) = tables["errors"].to_pylist()
    assert row["name"] == "bad.trace" and row["build"] == "7" and row["layout"] == VERSION
    assert "\n" not in row["reason"] and "byte" in row["reason"]
    assert str(tmp_path) not in row["reason"]  # the reason names no folder of the machine
    assert tables["traces"].num_rows == 1
    assert add(root, bad) == 0  # recorded: not tried again (dataset rm it to try again)
    capsys.readouterr()
    assert main(["dataset", "ls", str(root), "--json"]) == 0
    listed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert sorted(r["name"] for r in listed) == ["bad.trace", "gen-1.trace"]


def test_a_newer_layout_is_refused_in_one_line(
    traces: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "ds"
    assert add(root, traces[0]) == 0
    (root / MARKER).write_text(json.dumps({"format": "traceview-dataset", "layout": VERSION + 1}))
    for argv in (
        ["dataset", "add", str(root), str(traces[1])],
        ["dataset", "ls", str(root)],
        ["sql", "--dataset", str(root), "SELECT 1"],
        ["diff", "--dataset", str(root), "--base", "build=a", "--vs", "build=b"],
    ):
        capsys.readouterr()
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and f"layout {VERSION + 1}" in err, argv


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--app", "../x"], "bad label app"),
        (["--build", "a/b"], "no path separator"),
        (["--build", "x" * 65], "names a folder"),
        (["--label", "Branch=x"], "bad label name"),
        (["--label", "branch=" + "x" * 129], "1 to 128"),
        (["--label", "device=a\\b"], "backslash"),
        (["--label", "branch=feature/x"], "no path separator"),
        (["--label", "nolabel"], "name=value"),
        (["--label", "date=2020-01-01"], "set by the dataset"),
    ],
)
def test_labels_are_checked_before_anything_is_written(
    flags: list[str],
    says: str,
    traces: list[Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = tmp_path / "ds"
    assert main(["dataset", "add", str(root), str(traces[0]), *flags]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and says in err
    assert not root.exists()


def test_labels_as_columns_and_json(
    traces: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "ds"
    flags = ["--label", "branch=feature-x", "--label", "device=pixel 8", "--label", "ci_job=42"]
    assert add(root, traces[0], *flags) == 0
    rows = sql(
        root,
        "SELECT app, build, branch, device, json_extract_string(labels, '$.ci_job') AS job "
        "FROM traces",
        capsys,
    )
    assert rows == [
        {
            "app": "unknown",
            "build": "unknown",
            "branch": "feature-x",
            "device": "pixel 8",
            "job": "42",
        }
    ]


def test_rm_takes_a_trace_out_of_every_table(
    traces: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "ds"
    assert add(root, *traces) == 0
    before = read_tables(root)
    gone = sorted(before["traces"].column("trace_id").to_pylist())[1]
    assert main(["dataset", "rm", str(root), gone[:10]]) == 0
    after = read_tables(root)
    for table, t in before.items():
        kept = [r for r in t.to_pylist() if r["trace_id"] != gone]
        assert after[table].to_pylist() == kept, table
    assert main(["dataset", "rm", str(root), gone[:10]]) == 2  # no such trace now
    assert main(["dataset", "rm", str(root), "abc"]) == 2  # too short to name one
    assert add(root, *traces) == 0 and read_tables(root)["traces"].num_rows == 3  # back again


def test_replacing_a_trace_swaps_its_rows_in_one_publication(
    traces: list[Path], tmp_path: Path
) -> None:
    """`add(replacing=True)` (the service, when a run's labels or mapping change): the
    trace's old rows leave every table in the publication that brings the new ones; the
    traces sharing its parts keep theirs."""
    from traceview.dataset.add import add as add_api
    from traceview.dataset.publish import CLAIMS, STAGING

    root, fresh = tmp_path / "ds", tmp_path / "fresh"
    add_api(root, traces, {"build": "1"})
    before = read_tables(root)
    row = before["traces"].to_pylist()[1]  # rows in trace_id order
    moved, path = row["trace_id"], next(p for p in traces if p.name == row["name"])
    report = add_api(root, [path], {"build": "2"}, replacing=True)
    assert [t for t, _ in report.added] == [moved] and not report.present
    add_api(fresh, [path], {"build": "2"})
    after, want = read_tables(root), read_tables(fresh)
    for table, t in before.items():
        rows = after[table].to_pylist()
        assert [r for r in rows if r["trace_id"] != moved] == [
            r for r in t.to_pylist() if r["trace_id"] != moved
        ], table
        assert [r for r in rows if r["trace_id"] == moved] == want[table].to_pylist(), table
    assert not any((root / STAGING).iterdir()) and not any((root / CLAIMS).iterdir())
    again = add_api(root, [path], {"build": "2"})  # a plain add: already there
    assert [t for t, _ in again.present] == [moved]


@pytest.mark.parametrize("processes", [False, True])
def test_sources_bring_labels_of_their_own_in_one_publication(
    traces: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, processes: bool
) -> None:
    """`Source`s (the service's runs at start, each as it is stored): one add, each trace
    with its own labels, the same rows as one add per trace — in threads and in processes."""
    from traceview.dataset import add as adding

    each = tmp_path / "each"
    for i, path in enumerate(traces):
        adding.add(each, [path], {"build": str(i), "device": f"d{i}"})
    if processes:
        monkeypatch.setattr(adding, "PROCESS_BYTES", 0)
    root = tmp_path / "at-once"
    sources = [adding.Source(p, {"build": str(i), "device": f"d{i}"}) for i, p in enumerate(traces)]
    report = adding.add(root, sources, {"build": "ignored"}, workers=2)
    assert sorted(n for _, n in report.added) == sorted(p.name for p in traces)
    want, got = read_tables(each), read_tables(root)
    assert all(got[t].equals(want[t]) for t in want)
    with pytest.raises(ValueError, match="label"):  # checked before anything is written
        adding.add(tmp_path / "bad", [adding.Source(traces[0], {"build": "a/b"})])
    assert not (tmp_path / "bad").exists()


def test_pyarrow_dataset_and_duckdb_read_it(
    traces: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "ds"
    assert add(root, *traces, "--app", "a", "--build", "1") == 0
    calls = ds.dataset(root / "calls", format="parquet", partitioning="hive").to_table()
    assert {"trace_id", "call", "app", "build", "date"} <= set(calls.column_names)
    by_trace = sql(
        root,
        "SELECT t.name, count(*) AS n, sum(c.excl_wall_ns) AS excl FROM calls c "
        "JOIN traces t USING (trace_id) GROUP BY t.name ORDER BY t.name",
        capsys,
    )
    for row, path in zip(by_trace, sorted(traces), strict=True):
        capsys.readouterr()
        assert (
            main(
                [
                    "sql",
                    str(path),
                    "SELECT count(*) AS n, sum(excl_wall_ns) AS excl FROM calls",
                    "--json",
                ]
            )
            == 0
        )
        (one,) = json.loads(capsys.readouterr().out)
        assert row == {"name": path.name, **one}
    empty = sql(root, "SELECT count(*) AS n FROM errors", capsys)  # a table without parts
    assert empty == [{"n": 0}]
