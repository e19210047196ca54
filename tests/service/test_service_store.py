"""The service's storage and open-trace cache on their own: `SqliteStore` (content addressed,
indexed, ids never paths) and `SessionCache` (sizes estimated from arrays, LRU within a
budget, one load per id)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import cast

import numpy as np
import pytest

from traceview.analysis.session import Session
from traceview.service.sessions import Entry, SessionCache, estimate
from traceview.service.store import SqliteStore, TraceRecord, valid_id
from traceview.synth import generate

ID_A = "a" * 64
ID_B = "b" * 64


def record(trace_id: str, uploaded: float) -> TraceRecord:
    return TraceRecord(trace_id, "x.trace", 3, "regular", 1, 10, 5.0, uploaded)


def stage(store: SqliteStore, data: bytes) -> Path:
    path = store.staging_file()
    path.write_bytes(data)
    return path


def test_store_add_list_delete(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path)
    try:
        assert store.add(stage(store, b"abc"), record(ID_A, 1.0)) == (record(ID_A, 1.0), True)
        store.add(stage(store, b"def"), record(ID_B, 2.0))
        again, new = store.add(stage(store, b"abc"), record(ID_A, 9.0))
        assert again.uploaded == 1.0 and not new  # the first upload's record stays
        assert [r.id for r in store.recent()] == [ID_B, ID_A]
        assert store.path(ID_A).read_bytes() == b"abc"
        assert list(store.staging.iterdir()) == []
        assert store.delete(ID_A) and not store.delete(ID_A)
        assert not store.path(ID_A).exists() and store.get(ID_A) is None
    finally:
        store.close()


@pytest.mark.parametrize("bad", ["../" + "a" * 61, "A" * 64, "a" * 63, "", "a" * 64 + "/x"])
def test_ids_are_never_paths(tmp_path: Path, bad: str) -> None:
    assert not valid_id(bad)
    store = SqliteStore(tmp_path)
    try:
        with pytest.raises(ValueError):
            store.path(bad)
        assert store.get(bad) is None and not store.delete(bad)
    finally:
        store.close()


def test_a_row_whose_file_vanished_is_dropped_on_open(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path)
    store.add(stage(store, b"abc"), record(ID_A, 1.0))
    store.close()
    (tmp_path / "traces" / "aa" / ID_A).unlink()
    store = SqliteStore(tmp_path)
    try:
        assert store.recent() == []
    finally:
        store.close()


def test_estimate_counts_arrays_once_and_grows_with_views() -> None:
    session = Session(generate(records=20_000, threads=3, seed=4))
    events = session.trace.events
    floor = sum(
        v.nbytes for v in vars(events).values() if isinstance(v, np.ndarray)
    )  # the event columns alone
    before = estimate(session)
    assert before >= floor
    session.profile(session.query())  # builds the call table and a profile
    assert estimate(session) > before
    view = np.arange(1000)[::2]  # a view counts as its base, once
    base = view.base
    assert base is not None
    assert estimate([view, view, base]) == base.nbytes


class Fake:
    def __init__(self, size: int) -> None:
        self.data = np.zeros(size, dtype=np.uint8)


def entry(size: int) -> Entry:
    # a stand-in measured like a session (by its arrays), nothing else of one is used
    return Entry(session=cast(Session, Fake(size)), app=None, answers=lambda: 0)


def test_cache_keeps_recent_entries_within_budget() -> None:
    cache = SessionCache(budget=2500)
    for key in "abc":
        cache.get(key, lambda: entry(1000))
    assert list(cache.sizes()) == ["b", "c"]
    assert cache.peek("b") is not None  # b is now the most recent
    cache.get("d", lambda: entry(1000))
    assert list(cache.sizes()) == ["b", "d"]
    cache.get("huge", lambda: entry(10_000))
    assert list(cache.sizes()) == ["huge"]  # the newest stays, however big
    cache.drop("huge")
    assert cache.peek("huge") is None


def test_cache_opens_each_trace_once_under_concurrency() -> None:
    cache = SessionCache()
    opened: list[int] = []

    def slow() -> Entry:
        opened.append(1)
        time.sleep(0.05)
        return entry(10)

    threads = [threading.Thread(target=cache.get, args=("k", slow)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(opened) == 1
