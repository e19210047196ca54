"""The tables' layout (issue 21): only int32/int64/double/bool/string columns (no uint64, which
Spark reads as decimal(20,0) and Trino does not map), `trace_id` in every table, `method_key`
stable across traces and releases (a known value pinned), rows in their sort order, the
per-thread profile summing to the profile, and the traces table's facts."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from support.datasets import write_traces
from support.obfuscate import obfuscate
from traceview.analysis import Session, View
from traceview.analysis.rename import MappingRename
from traceview.api.aggregates import thread_profile_table
from traceview.api.keys import key_text, method_key, method_keys
from traceview.api.schema import COLUMNS, SORT_KEYS, TABLES, TYPES
from traceview.api.tables import methods_table, tables
from traceview.api.traces import Origin, traces_table
from traceview.exporters.parquet import write_directory
from traceview.readers import load
from traceview.readers.mapping import read_mapping
from traceview.synth import generate

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

PHYSICAL = {"int32": "INT32", "int64": "INT64", "double": "DOUBLE", "bool": "BOOLEAN"}


def test_the_schema_names_only_portable_types() -> None:
    for table, columns in COLUMNS.items():
        assert columns[0] == ("trace_id", "string"), table
        assert all(kind in TYPES for _, kind in columns), table
        names = [n for n, _ in columns]
        assert len(set(names)) == len(names) and set(SORT_KEYS[table]) <= set(names)
    assert dict(COLUMNS["methods"])["id"] == "int64"  # was uint64 in layout 1


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, View]:
    session = Session(generate(records=8000, threads=3, seed=21))
    view = View(session, session.query())
    out = tmp_path_factory.mktemp("x") / "t.parquet"
    write_directory(view, out, Origin("ab" * 32, "t.trace", 123, "2026-01-02"))
    return out, view


def test_written_files_hold_the_declared_types(exported: tuple[Path, View]) -> None:
    out, _ = exported
    for table in TABLES:
        (part,) = sorted((out / table).glob("*.parquet"))
        schema = pq.ParquetFile(part).schema  # the Parquet schema, as Spark and Trino see it
        assert [c.name for c in schema] == [n for n, _ in COLUMNS[table]]
        for col, (_, kind) in zip(schema, COLUMNS[table], strict=True):
            if kind == "string":
                assert (col.physical_type, col.logical_type.type) == ("BYTE_ARRAY", "STRING")
            else:
                assert col.physical_type == PHYSICAL[kind], (table, col.name)
                assert col.logical_type.type in ("NONE", "INT"), (table, col.name)
                if col.logical_type.type == "INT":
                    assert col.logical_type.is_signed, (table, col.name)  # never UINT_64
        back = pq.read_table(part)
        assert back.column("trace_id").to_pylist() == ["ab" * 32] * back.num_rows
        keys = [(k, "ascending") for k in SORT_KEYS[table]]
        assert back.equals(back.sort_by(keys)), f"{table} rows out of order"


def test_the_tables_match_the_schema(exported: tuple[Path, View]) -> None:
    _, view = exported
    built = {**tables(view), "traces": traces_table(view, Origin("x"))}
    kinds = {"int32": np.int32, "int64": np.int64, "bool": np.bool_, "string": np.object_}
    for table, columns in COLUMNS.items():
        if table == "errors":
            continue
        t = built[table]
        assert list(t.columns) == [n for n, _ in columns if n != "trace_id" or table == "traces"]
        for name, kind in columns:
            col = dict(t.items()).get(name)
            assert col is None or col.dtype == kinds[kind], (table, name, col.dtype)


def test_method_key_is_pinned_and_stable() -> None:
    # the first 8 bytes of SHA-256("class\tname\tsignature"), big-endian, signed
    text = "java.lang.Object\t<init>\t()V"
    want = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big", signed=True)
    assert method_key("java.lang.Object", "<init>", "()V") == want == 6761767271482294781
    assert key_text("java/lang/Object", "<init>", "()V") == text  # Dalvik's slashes too
    keys = method_keys(["a.B", "a/B"], ["m", "m"], ["()V", "()V"])
    assert keys.dtype == np.int64 and keys[0] == keys[1]


def test_method_key_is_the_same_in_every_trace_and_release(tmp_path: Path) -> None:
    """The same method in two traces and in two obfuscated releases (each with its mapping)
    has one key."""
    one, two = write_traces(tmp_path, [1, 2], records=4000)
    keys = []
    for path in (one, two):
        s = Session(load(path))
        m = methods_table(View(s, s.query()))
        label_col, key_col = m["label"], m["method_key"]
        assert label_col is not None and key_col is not None
        keys.append(dict(zip(label_col.tolist(), key_col.tolist(), strict=True)))
    shared = set(keys[0]) & set(keys[1])
    assert shared and all(keys[0][k] == keys[1][k] for k in shared)
    plain = Session(load(one))
    plain_keys = methods_table(View(plain, plain.query()))["method_key"]
    assert plain_keys is not None
    want = set(plain_keys.tolist())
    for release in ("r1", "r2"):
        trace, mapping = obfuscate(load(one), f"com.{release}")
        text = tmp_path / f"{release}.txt"
        text.write_text(mapping)
        s = Session(trace)
        q = s.query(rename=MappingRename(read_mapping(str(text))))
        renamed_keys = methods_table(View(s, q))["method_key"]
        assert renamed_keys is not None
        assert set(renamed_keys.tolist()) == want, release


def test_ids_past_2_63_are_int64() -> None:
    """An `ArtMethod*` past 2**63 is written as the int64 of the same bits (negative)."""
    trace = generate(records=2000, threads=1, seed=3)
    high = np.uint64(0xFFFF_FF80_0000_0000) + trace.methods.id.astype(np.uint64)
    s = Session(replace(trace, methods=replace(trace.methods, id=high)))
    ids = methods_table(View(s, s.query()))["id"]
    assert ids is not None and ids.dtype == np.int64 and (ids < 0).all()
    assert np.array_equal(ids.view(np.uint64), high)


def test_the_profile_per_thread_sums_to_the_profile() -> None:
    s = Session(generate(records=20_000, threads=4, seed=8))
    span = s.end - s.origin
    for q in (s.query(), s.query(time_range=s.time_range(span // 4, span // 2))):
        view = View(s, q)
        prof = s.profile(q)
        t = thread_profile_table(view)
        n = len(s.trace.methods)
        method = t["method"]
        assert method is not None
        for col, want in (("calls", prof.calls), ("recursive_calls", prof.recursive_calls)):
            counts = t[col]
            assert counts is not None
            got = np.zeros(n, dtype=np.int64)
            np.add.at(got, method, counts)
            assert np.array_equal(got, want), col
        for c in s.clocks:
            for k in ("incl", "excl"):
                times = t[f"{k}_{c}_ns"]
                assert times is not None
                got = np.zeros(n, dtype=np.int64)
                np.add.at(got, method, times)
                assert np.array_equal(got, getattr(prof, k)[c]), (k, c)
        thread = t["thread"]
        assert thread is not None
        for th in np.unique(thread):  # one thread's rows are its own profile
            one = s.profile(s.query(threads=[int(th)], time_range=q.time_range))
            rows = t["thread"] == th
            assert np.array_equal(
                np.sort(method[rows]), np.flatnonzero(one.calls + one.recursive_calls)
            )


def test_the_traces_row(exported: tuple[Path, View]) -> None:
    out, view = exported
    (row,) = pq.read_table(out / "traces").to_pylist()
    assert row["trace_id"] == "ab" * 32 and row["name"] == "t.trace" and row["size"] == 123
    assert (row["app"], row["build"], row["date"]) == ("unknown", "unknown", "2026-01-02")
    assert row["branch"] is None and row["labels"] == "{}"
    assert row["clocks"] == "cpu,wall" and row["clock"] == view.session.default_clock
    assert row["records"] == len(view.trace.events) and row["calls"] == len(view.session.calls)
    assert row["duration_ns"] == view.session.end - view.session.origin
    labelled = traces_table(view, Origin("x", labels=(("app", "a"), ("branch", "b/c"), ("z", "1"))))
    got = labelled.rows()[0]
    assert (got["app"], got["build"], got["branch"], got["labels"]) == (
        "a",
        "unknown",
        "b/c",
        '{"z":"1"}',
    )
