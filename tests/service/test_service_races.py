"""Races between the trace service's requests (issue 18), with the interleaving forced: a store
whose operation waits at a gate while the test sends the competing request. A mapping that
arrives while its trace is deleted is refused and leaves nothing behind (it used to stay, and
the next upload of the same bytes was listed with names nobody sent); identical uploads at
the same moment answer 201 once and 200 `stored: false` for the rest (all three said 201).
A stress over the store itself checks the same invariants for a bounded number of rounds."""

from __future__ import annotations

import io
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from support.obfuscate import obfuscate
from traceview.service.routes import Config, create_service
from traceview.service.store import SqliteStore, TraceRecord
from traceview.synth import generate
from traceview.writer import write

with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

WRITE = {"X-Traceview": "1", "X-Filename": "r.trace"}
ROUNDS = 60


@pytest.fixture(scope="module")
def build() -> tuple[bytes, str]:
    """(obfuscated trace bytes, its mapping.txt)."""
    obf, mapping = obfuscate(generate(records=3000, threads=2, seed=7), "q")
    out = io.BytesIO()
    write(obf, out)
    return out.getvalue(), mapping


@contextmanager
def serving(store: SqliteStore) -> Iterator[TestClient]:
    app = create_service(store, allowed_hosts=("127.0.0.1",), config=Config())
    try:
        with TestClient(app, base_url="http://127.0.0.1") as client:
            yield client
    finally:
        store.close()


class InThread:
    """`call` run in a thread of its own: `done` is set once it returned or raised, and
    `response()` joins it and gives what it returned (or raises what it raised)."""

    def __init__(self, call: Callable[[], httpx.Response], then: Callable[[], object]) -> None:
        self.done = threading.Event()
        self._out: list[Any] = []

        def run() -> None:
            try:
                self._out.append(call())
            except BaseException as exc:  # handed to the test by `response`
                self._out.append(exc)
            finally:
                self.done.set()
                then()  # (e.g. let the others at a gate go: none waits for this one any more)

        self._thread = threading.Thread(target=run)
        self._thread.start()

    def response(self) -> httpx.Response:
        self._thread.join()
        (out,) = self._out
        if isinstance(out, BaseException):
            raise out
        response: httpx.Response = out
        return response


def in_thread(
    call: Callable[[], httpx.Response], then: Callable[[], object] = lambda: None
) -> InThread:
    """Start `call` in a thread (`InThread`); `then` runs after it, whatever happened."""
    return InThread(call, then)


def reached(gate: threading.Event, request: InThread) -> bool:
    """Wait until `gate` is set or `request` has ended without setting it (no time limit:
    each side either gets there or finishes); whether the gate was reached."""
    while not gate.is_set() and not request.done.is_set():
        gate.wait(0.05)  # (polls both: a wait with no bound on either alone could hang)
    return gate.is_set()


def test_a_mapping_racing_a_delete_is_refused_and_not_kept(
    tmp_path: Path, build: tuple[bytes, str]
) -> None:
    data, mapping = build
    arrived, go = threading.Event(), threading.Event()

    class GatedStore(SqliteStore):
        def set_mapping(self, trace_id: str, staged: Path) -> bool:
            arrived.set()  # the mapping is checked: the service is about to keep it
            go.wait()  # (the test sets it whatever happens)
            return super().set_mapping(trace_id, staged)

    store = GatedStore(tmp_path / "data")
    with serving(store) as client:
        trace_id = client.post("/api/traces", content=data, headers=WRITE).json()["id"]
        url = f"/api/traces/{trace_id}"
        put = in_thread(lambda: client.put(url + "/mapping", content=mapping, headers=WRITE))
        try:
            assert reached(arrived, put), "the mapping never reached the store"
            assert client.delete(url, headers=WRITE).status_code == 200  # lands first
        finally:
            go.set()
        assert put.response().status_code == 404
        assert not store.mapping_path(trace_id).exists()
        again = client.post("/api/traces", content=data, headers=WRITE)
        assert again.status_code == 201 and again.json()["stored"] is True
        assert client.get("/api/traces").json()["traces"][0]["mapping"] is False


def test_identical_uploads_at_once_store_once(tmp_path: Path, build: tuple[bytes, str]) -> None:
    data = build[0]
    together = threading.Barrier(3)

    class GatedStore(SqliteStore):
        def add(self, staged: Path, record: TraceRecord) -> tuple[TraceRecord, bool]:
            together.wait()  # all three were checked as new before any is kept
            return super().add(staged, record)

    store = GatedStore(tmp_path / "data")
    with serving(store) as client:
        posts = [  # one that ends without reaching the gate breaks it for the others
            in_thread(
                lambda: client.post("/api/traces", content=data, headers=WRITE), together.abort
            )
            for _ in range(3)
        ]
        answers = sorted((r.status_code, r.json()["stored"]) for r in (p.response() for p in posts))
        assert answers == [(200, False), (200, False), (201, True)]
        assert len(client.get("/api/traces").json()["traces"]) == 1
        assert list(store.staging.iterdir()) == []


def at_once(*work: Callable[[], object]) -> None:
    """Run each of `work` in its own thread, all released together; wait for all."""
    start = threading.Barrier(len(work))  # (each thread goes straight to it)

    def run(w: Callable[[], object]) -> None:
        start.wait()
        w()

    threads = [threading.Thread(target=run, args=(w,)) for w in work]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def test_store_changes_of_one_id_at_once_keep_row_file_and_mapping_together(
    tmp_path: Path,
) -> None:
    store = SqliteStore(tmp_path / "data")
    trace_id = "c" * 64
    record = TraceRecord(trace_id, "x.trace", 3, "regular", 1, 10, 5.0, 1.0)

    def staged(data: bytes) -> Path:
        path = store.staging_file()
        path.write_bytes(data)
        return path

    try:
        for _ in range(ROUNDS):
            first, second, names = staged(b"abc"), staged(b"abc"), staged(b"names")
            at_once(
                lambda: store.add(first, record),  # noqa: B023 (joined within the round)
                lambda: store.add(second, record),  # noqa: B023
                lambda: store.delete(trace_id),
                lambda: store.set_mapping(trace_id, names),  # noqa: B023
            )
            stored = store.get(trace_id) is not None
            assert stored == store.path(trace_id).is_file()  # a row has its file, and back
            assert stored or not store.mapping_path(trace_id).exists()  # no orphan mapping
            assert list(store.staging.iterdir()) == []
            store.delete(trace_id)
    finally:
        store.close()
