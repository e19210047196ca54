"""`traceview sql`: SQL over the calls, methods, threads and edges tables of one or many traces
checked against `Session.profile` (Σ exclusive by method, Σ inclusive of outer calls, thread
totals, edges), the `trace` column for several traces and globs, the content-addressed cache
and `--no-cache`, the table/CSV/JSON outputs, and one-line errors with exit status 2."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import traceview
from support.corpus import readable
from traceview.analysis import Session
from traceview.cli import main
from traceview.synth import generate
from traceview.writer import write

pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")

EXCL = "SELECT method, sum(excl_{c}_ns) AS excl, count(*) AS n FROM calls GROUP BY method"
INCL = "SELECT method, sum(incl_{c}_ns) AS incl FROM calls WHERE NOT recursive GROUP BY method"


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private cache (never the user's ~/.cache)."""
    root = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(root))
    return root


def traces(folder: Path, seeds: list[int]) -> list[Path]:
    folder.mkdir(exist_ok=True)
    out = []
    for seed in seeds:
        path = folder / f"run-{seed:02d}.trace"
        write(generate(records=3_000, threads=3, seed=seed), path, variant="regular")
        out.append(path)
    return out


def sql(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["sql", *args])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def rows(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, Any]]:
    code, out, err = sql(capsys, *args, "--json")
    assert code == 0, err
    data: list[dict[str, Any]] = json.loads(out)
    return data


def check_profile(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    """SQL sums over one trace equal the profile's numbers."""
    s = Session(traceview.load(path))
    prof = s.profile(s.query())
    n = len(s.trace.methods)
    for c in s.clocks:
        excl = np.zeros(n, dtype=np.int64)
        count = np.zeros(n, dtype=np.int64)
        for r in rows(capsys, str(path), EXCL.format(c=c)):
            excl[r["method"]], count[r["method"]] = r["excl"], r["n"]
        assert np.array_equal(excl, prof.excl[c]), (path, c)
        assert np.array_equal(count, prof.calls + prof.recursive_calls), path
        incl = np.zeros(n, dtype=np.int64)
        for r in rows(capsys, str(path), INCL.format(c=c)):
            incl[r["method"]] = r["incl"]
        assert np.array_equal(incl, prof.incl[c]), (path, c)
        totals = rows(capsys, str(path), f"SELECT thread, total_{c}_ns AS t FROM threads")
        want = dict(zip(prof.threads, prof.thread_total[c].tolist(), strict=True))
        assert {r["thread"]: r["t"] for r in totals} == want
    edges = rows(
        capsys,
        str(path),
        "SELECT (SELECT coalesce(sum(calls), 0) FROM edges) AS e, "
        "(SELECT count(*) FROM calls) AS c",
    )
    assert edges[0]["e"] == edges[0]["c"] == int((prof.calls + prof.recursive_calls).sum())


def test_sums_equal_the_profile_on_generated_traces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for path in traces(tmp_path / "runs", [1, 2]):
        check_profile(capsys, path)


def test_sums_equal_the_profile_on_corpus_traces(capsys: pytest.CaptureFixture[str]) -> None:
    paths = [p for p in readable() if p.stat().st_size < 4_000_000]
    if not paths:
        pytest.skip("corpus not available")
    for path in paths:
        check_profile(capsys, path)


def test_several_traces_and_globs_get_a_trace_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = traces(tmp_path / "runs", [3, 1, 2])
    monkeypatch.chdir(tmp_path)
    query = "SELECT trace, count(*) AS n FROM calls GROUP BY trace ORDER BY trace"
    got = rows(capsys, "runs/*.trace", query)
    want = []
    for p in sorted(paths):
        s = Session(traceview.load(p))
        want.append({"trace": f"runs/{p.name}", "n": len(s.calls)})
    assert got == want
    # every table has it, first; joins across tables use it
    for table in ("calls", "methods", "threads", "edges"):
        head = rows(capsys, "runs/*.trace", f"SELECT * FROM {table} LIMIT 1")
        assert next(iter(head[0])) == "trace"
    main_excl = rows(
        capsys,
        "runs/run-01.trace",
        "runs/run-02.trace",
        "SELECT trace, sum(excl_wall_ns) AS w FROM calls JOIN threads USING (trace, thread) "
        "WHERE main GROUP BY trace ORDER BY trace",
    )
    for r in main_excl:
        s = Session(traceview.load(tmp_path / r["trace"]))
        prof = s.profile(s.query(threads=[s.main_thread()]))
        assert r["w"] == int(prof.excl["wall"].sum())
    # one trace: no trace column; a glob matching one file: the column is there
    assert "trace" not in rows(capsys, "runs/run-01.trace", "SELECT * FROM calls LIMIT 1")[0]
    assert "trace" in rows(capsys, "runs/run-01.*", "SELECT * FROM calls LIMIT 1")[0]
    # a trace named twice is queried once
    twice = rows(
        capsys, "runs/run-01.trace", "runs/run-01.trace", "SELECT count(*) AS n FROM calls"
    )
    once = rows(capsys, "runs/run-01.trace", "SELECT count(*) AS n FROM calls")
    assert twice == once


def test_the_cache_is_by_content_and_no_cache_writes_nothing(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    cache: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (path,) = traces(tmp_path / "runs", [4])
    query = "SELECT count(*) AS n FROM calls"
    assert rows(capsys, str(path), query, "--no-cache")
    assert not cache.exists()
    first = rows(capsys, str(path), query)
    (entry,) = (p for p in (cache / "traceview" / "sql").glob("v*/*") if p.name != "paths")
    assert len(entry.name) == 64 and sorted(p.name for p in entry.iterdir()) == [
        "calls",
        "edges",
        "methods",
        "profile",
        "threads",
        "traces",
    ]
    assert all(len(list((entry / t).glob("part-*.parquet"))) == 1 for t in ("traces", "edges"))
    assert not list(path.parent.glob("*.parquet"))  # nothing next to the traces

    def no_build(path: str, directory: Path, args: object) -> None:
        raise AssertionError("the cached tables should have been used")

    monkeypatch.setattr("traceview.cli.sql.build", no_build)
    copy = tmp_path / "same-bytes.trace"
    copy.write_bytes(path.read_bytes())
    assert rows(capsys, str(copy), query) == first  # same bytes, same entry
    monkeypatch.undo()
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    # the same path with other bytes is hashed again (its identity changed), never stale
    write(generate(records=1_000, threads=2, seed=9), path, variant="regular")
    other = rows(capsys, str(path), query)
    assert other != first
    assert other[0]["n"] == len(Session(traceview.load(path)).calls)


def test_csv_json_and_table_outputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (path,) = traces(tmp_path / "runs", [5])
    query = (
        "SELECT thread, label, main, total_wall_ns, NULL AS nothing, 1.5 AS x "
        "FROM threads ORDER BY thread"
    )
    data = rows(capsys, str(path), query)
    assert [r["thread"] for r in data] == [0, 1, 2]
    assert data[0]["nothing"] is None and data[0]["x"] == 1.5
    assert isinstance(data[0]["main"], bool)
    code, out, _ = sql(capsys, str(path), query, "--csv")
    assert code == 0
    table = list(csv.reader(io.StringIO(out)))
    assert table[0] == ["thread", "label", "main", "total_wall_ns", "nothing", "x"]
    assert len(table) == 4 and table[1][4] == "" and table[1][2] in ("true", "false")
    assert [int(r[0]) for r in table[1:]] == [0, 1, 2]
    code, out, _ = sql(capsys, str(path), query)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["thread", "label", "main", "total_wall_ns", "nothing", "x"]
    assert lines[-1] == "(3 rows)" and "NULL" in lines[1]
    target = tmp_path / "out.csv"
    assert main(["sql", str(path), query, "--csv", "-o", str(target)]) == 0
    assert target.read_text().splitlines()[0].startswith("thread,label")
    assert rows(capsys, str(path), "SELECT 1 AS a, 2 AS a") == [{"a": 1, "a:2": 2}]
    assert rows(capsys, str(path), "SELECT * FROM calls WHERE false") == []


def test_errors_are_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (path,) = traces(tmp_path / "runs", [6])
    for bad in ("SELEC 1", "SELECT nope FROM calls", "SELECT * FROM nowhere"):
        code, out, err = sql(capsys, str(path), bad)
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and err.startswith("traceview: ") and "Error" in err
    code, _, err = sql(capsys, str(tmp_path / "runs" / "*.nothing"), "SELECT 1")
    assert code == 2 and "no file matches" in err
    code, _, err = sql(capsys, str(tmp_path / "missing.trace"), "SELECT 1")
    assert code == 2 and err.count("\n") == 1
    code, _, err = sql(capsys, str(path), "SELECT 1", "--csv", "--json")
    assert code == 2 and "choose one" in err
    code, _, err = sql(capsys, str(path), "SELECT 1", "--max-size", "1k", "--no-cache")
    assert code == 2 and err.count("\n") == 1
    monkeypatch.setitem(sys.modules, "duckdb", None)
    code, _, err = sql(capsys, str(path), "SELECT 1")
    assert code == 2 and "pip install 'traceview[data]'" in err


def test_a_file_rewritten_in_place_with_its_times_put_back_is_hashed_again(
    tmp_path: Path, cache: Path
) -> None:
    """The digest of a trace is remembered by the file's stamp (`readers.files.stamp`): the
    same inode, size and modification time after a rewrite in place (a copy tool keeping
    times) gave the digest of the bytes it held before, and with it the tables of another
    trace. The change time, which nothing but the kernel sets, tells them apart."""
    import os

    from traceview.cli.sql import digest_of
    from traceview.readers.files import stamp

    path = tmp_path / "a.trace"
    path.write_bytes(b"first bytes")
    before = os.stat(path)
    seen = stamp(path)
    first = digest_of(path)
    with path.open("r+b") as f:  # the same inode and size
        f.write(b"other")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    now = stamp(path)
    assert seen is not None and now is not None
    assert now[:4] == seen[:4]  # device, inode, size and modification as they were
    assert digest_of(path) != first
