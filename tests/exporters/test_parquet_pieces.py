"""The calls table written a row group at a time, in one part file per worker, equals the
table built whole; a failing write raises."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from traceview.analysis import Session, View
from traceview.api.schema import LAYOUT
from traceview.api.tables import calls_batches, calls_table
from traceview.api.traces import Origin
from traceview.exporters import parquet
from traceview.synth import generate

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


@pytest.fixture(scope="module")
def session() -> Session:
    return Session(generate(records=20_000, threads=3, seed=5))


def views(session: Session) -> list[View]:
    span = session.end - session.origin
    return [
        View(session, session.query()),
        View(session, session.query(threads=[1])),
        View(session, session.query(time_range=session.time_range(span // 5, span // 2))),
    ]


def test_pieces_equal_the_whole_table(session: Session) -> None:
    for view in views(session):
        whole = calls_table(view)
        pieces = list(calls_batches(view, 777))
        assert len(pieces) == max(1, -(-len(whole) // 777))
        for name in whole.columns:
            col = whole[name]
            if col is None:
                assert all(p[name] is None for p in pieces)
            else:
                assert np.array_equal(np.concatenate([p[name] for p in pieces]), col), name


def test_parts_read_back_as_the_table(
    session: Session, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The calls table cut into one part per worker (past `SPLIT` rows), each in row groups
    of `ROW_GROUP`."""
    monkeypatch.setattr(parquet, "ROW_GROUP", 1000)
    monkeypatch.setattr(parquet, "SPLIT", 1000)
    for i, view in enumerate(views(session)):
        out = tmp_path / f"c{i}"
        out.mkdir()
        parquet.write_files(view, out, Origin("ab" * 32), workers=2)
        files = sorted((out / "calls").glob("*.parquet"))
        assert len(files) == (2 if len(calls_table(view)) > 1000 else 1)
        back = pa.concat_tables([pq.read_table(f) for f in files])
        for f in files:
            meta = pq.ParquetFile(f).metadata
            assert all(meta.row_group(g).num_rows <= 1000 for g in range(meta.num_row_groups))
            assert meta.metadata[b"traceview.layout"] == str(LAYOUT).encode()
        assert back.column("trace_id").to_pylist() == ["ab" * 32] * back.num_rows
        assert back.drop(["trace_id"]).equals(calls_table(view).to_arrow())


def test_no_calls_still_writes_the_columns(session: Session) -> None:
    empty = View(session, session.query(time_range=session.time_range(0, 0)))
    sink = io.BytesIO()
    calls = [parquet.to_arrow("calls", p, "x") for p in calls_batches(empty)]
    parquet.write_pieces("calls", calls, sink, {})
    back = pq.read_table(io.BytesIO(sink.getvalue()))
    assert back.num_rows == 0 and "excl_wall_ns" in back.column_names


def test_a_failing_write_raises(session: Session, tmp_path: Path) -> None:
    class Full(io.BytesIO):
        def writable(self) -> bool:
            return True

        def write(self, b: object) -> int:
            raise OSError(28, "No space left on device")

    view = View(session, session.query())
    pieces = (parquet.to_arrow("calls", p, "x") for p in calls_batches(view, 100))
    with pytest.raises(OSError, match="No space"):
        parquet.write_pieces("calls", pieces, Full(), {})
    with pytest.raises(OSError):  # a table's folder already there: nothing is overwritten
        (tmp_path / "calls").mkdir()
        parquet.write_files(view, tmp_path)
