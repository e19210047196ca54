"""The calls table written a row group at a time equals the table built whole; a failing
write stops the builder and raises."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from traceview.analysis import Session, View
from traceview.api.tables import calls_batches, calls_table
from traceview.exporters import parquet
from traceview.synth import generate

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


def test_row_groups_read_back_as_the_table(
    session: Session, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parquet, "ROW_GROUP", 1000)
    for i, view in enumerate(views(session)):
        out = tmp_path / f"c{i}.parquet"
        parquet.write_calls(view, out, {b"k": b"v"})
        back = pq.read_table(out)
        assert pq.ParquetFile(out).metadata.num_row_groups == max(1, -(-back.num_rows // 1000))
        assert back.schema.metadata[b"k"] == b"v"
        assert back.equals(calls_table(view).to_arrow())


def test_no_calls_still_writes_the_columns(session: Session) -> None:
    empty = View(session, session.query(time_range=session.time_range(0, 0)))
    sink = io.BytesIO()
    parquet.write_calls(empty, sink, {})
    back = pq.read_table(io.BytesIO(sink.getvalue()))
    assert back.num_rows == 0 and "excl_wall_ns" in back.column_names


def test_a_failing_write_raises_and_stops_the_builder(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parquet, "ROW_GROUP", 100)

    class Full(io.RawIOBase):
        def writable(self) -> bool:
            return True

        def write(self, b: object) -> int:
            raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space"):
        parquet.write_calls(View(session, session.query()), Full(), {})
