"""The service's dataset after a stop (service/feed.py): a service stopped after a change was
stored (an upload, new labels, a mapping given or removed, a deletion) but before the
dataset's publication of it finds the difference on its next start and publishes the run as
stored — the dataset kept the old names, labels or rows forever. The stop is simulated by the
dataset's add (or remove) failing, then a fresh service over the same folders."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from test_service_routes import WRITE, make_client, trace_bytes

from support.datasets import read_tables
from support.obfuscate import KEPT, obfuscated_app
from traceview.api.keys import method_key

pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")

LABELS = {"app": "com.example", "build": "7"}
HANG_GUARD = 300  # seconds: only stops a stuck test; no time is asserted


App = tuple[bytes, bytes, set[int]]


@pytest.fixture(scope="module")
def app() -> App:
    """An obfuscated trace's bytes, its mapping and the method keys of its original names."""
    trace, data, mapping = obfuscated_app(seed=7)
    originals = {
        method_key(c, n, s)
        for c, n, s in zip(
            trace.methods.class_name, trace.methods.name, trace.methods.signature, strict=True
        )
        if not c.startswith(KEPT)
    }
    return data, mapping.encode(), originals


@contextmanager
def serve(data: Path) -> Iterator[Any]:
    """A service over `data` with its dataset, once its start-up work on the dataset is done."""
    with make_client(data, dataset=data / "dataset") as client:
        settle(client)
        yield client
        settle(client)


def settle(client: Any) -> None:
    """Wait for the service's start-up sync (what the test then reads says whether it ran)."""
    feed = getattr(client.app.state, "feed", None)
    if feed is not None:
        feed.ready.wait(HANG_GUARD)


def stopped(
    monkeypatch: pytest.MonkeyPatch, name: str = "add", calls: list[str] | None = None
) -> None:
    """The dataset's `add` (or `remove`) never completes: the service stopped first."""
    import traceview.dataset.add
    import traceview.dataset.remove

    def fail(*args: object, **kw: object) -> None:
        if calls is not None:
            calls.append(name)
        raise RuntimeError("the service stopped here")

    module = traceview.dataset.add if name == "add" else traceview.dataset.remove
    monkeypatch.setattr(module, name, fail)


def mapped_before_a_stop(
    data: Path, monkeypatch: pytest.MonkeyPatch, app: tuple[bytes, bytes, set[int]]
) -> str:
    """The id of a run uploaded to a service over `data` whose mapping was stored, the
    service stopping before the dataset published it."""
    trace, mapping, _ = app
    with serve(data) as client:
        tid = post(client, trace, **LABELS)
        with monkeypatch.context() as m:
            stopped(m)
            r = client.put(f"/api/traces/{tid}/mapping", content=mapping, headers=WRITE)
            assert r.status_code == 200
    return tid


def post(client: Any, data: bytes, **labels: str) -> str:
    query = "&".join(f"{k}={v}" for k, v in labels.items())
    r = client.post(f"/api/traces?{query}", content=data, headers={**WRITE, "X-Filename": "a"})
    assert r.status_code in (200, 201), r.text
    return str(r.json()["id"])


def rows_of(data: Path) -> list[dict[str, Any]]:
    return list(read_tables(data / "dataset")["traces"].to_pylist())


def rows(data: Path) -> tuple[list[tuple[str, str, str]], set[int]]:
    """The runs of the service's dataset (id, app, build) and its method keys."""
    tables = read_tables(data / "dataset")
    runs = sorted((t["trace_id"], t["app"], t["build"]) for t in tables["traces"].to_pylist())
    return runs, set(tables["methods"].column("method_key").to_pylist())


def test_an_upload_stored_before_the_stop_reaches_the_dataset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, app: App
) -> None:
    data = tmp_path / "data"
    with monkeypatch.context() as m, serve(data) as client:
        stopped(m)
        tid = post(client, app[0], **LABELS)
    with serve(data):
        assert rows(data)[0] == [(tid, "com.example", "7")]


def test_labels_stored_before_the_stop_reach_the_dataset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, app: App
) -> None:
    data = tmp_path / "data"
    with serve(data) as client:
        tid = post(client, app[0], **LABELS)
        with monkeypatch.context() as m:
            stopped(m)
            post(client, app[0], build="8")
        assert rows(data)[0] == [(tid, "com.example", "7")]  # the stop's window
    with serve(data):
        assert rows(data)[0] == [(tid, "com.example", "8")]


def test_a_mapping_stored_before_the_stop_renames_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, app: App
) -> None:
    data = tmp_path / "data"
    originals = app[2]
    tid = mapped_before_a_stop(data, monkeypatch, app)
    assert not originals & rows(data)[1]  # still the obfuscated names
    with serve(data):
        runs, keys = rows(data)
        assert runs == [(tid, "com.example", "7")] and originals <= keys
    # and removed before a stop: the obfuscated names again on the next start
    with serve(data) as client, monkeypatch.context() as m:
        stopped(m)
        assert client.delete(f"/api/traces/{tid}/mapping", headers=WRITE).status_code == 200
    assert originals <= rows(data)[1]
    with serve(data):
        runs, keys = rows(data)
        assert runs == [(tid, "com.example", "7")] and not originals & keys


def test_a_deletion_stored_before_the_stop_leaves_the_dataset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, app: App
) -> None:
    data = tmp_path / "data"
    with serve(data) as client:
        tid = post(client, app[0], **LABELS)
        with monkeypatch.context() as m:
            stopped(m, "remove")
            assert client.delete(f"/api/traces/{tid}", headers=WRITE).status_code == 200
        assert rows(data)[0] == [(tid, "com.example", "7")]
    with serve(data):
        assert rows(data) == ([], set())


def test_a_start_with_nothing_changed_reads_no_trace_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, app: App
) -> None:
    """The start compares what each run was last published with to what it is stored with:
    nothing differs, nothing is added, also for a dataset the service wrote before it kept
    that record (its runs' labels are compared with the dataset's rows)."""
    data = tmp_path / "data"
    with serve(data) as client:
        tid = post(client, app[0], **LABELS)
        other = post(client, trace_bytes(seed=2), build="9")
    before = read_tables(data / "dataset")
    for forget in (False, True):
        if forget:  # the dataset of a service without the record
            for f in (data / "dataset" / "_published").glob("*"):
                f.unlink()
        calls: list[str] = []
        with monkeypatch.context() as m:
            stopped(m, "add", calls)
            stopped(m, "remove", calls)
            with serve(data):
                pass
        assert calls == []
        after = read_tables(data / "dataset")
        assert all(after[t].equals(before[t]) for t in before)
    with serve(data) as client, monkeypatch.context() as m:  # stopped after a label changed
        stopped(m)
        post(client, app[0], build="8")
    import traceview.dataset.add

    real, given = traceview.dataset.add.add, []

    def spy(root: Path, paths: list[Any], *args: Any, **kw: Any) -> Any:
        given.append(len(paths))
        return real(root, paths, *args, **kw)

    with monkeypatch.context() as m:
        m.setattr(traceview.dataset.add, "add", spy)
        with serve(data):
            pass
    assert given == [1]  # that run alone is read again
    assert ("8", tid) in {(r["build"], r["trace_id"]) for r in rows_of(data)}
    assert {tid, other} == set(before["traces"].column("trace_id").to_pylist())


def test_the_methods_pages_wait_for_the_start_to_bring_the_dataset_up_to_date(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, app: App
) -> None:
    """While the start re-adds a run, the history answers 503 with Retry-After (never the
    names the run no longer has), then the run as stored."""
    import traceview.dataset.add

    data = tmp_path / "data"
    originals = app[2]
    tid = mapped_before_a_stop(data, monkeypatch, app)
    gate, real = threading.Event(), traceview.dataset.add.add

    def slow(*args: Any, **kw: Any) -> Any:
        gate.wait(HANG_GUARD)
        return real(*args, **kw)

    monkeypatch.setattr(traceview.dataset.add, "add", slow)
    with make_client(data, dataset=data / "dataset") as client:
        assert isinstance(client.app, Starlette)
        client.app.state.feed.patience = 0.0
        key = min(originals)
        r = client.get(f"/api/methods/{key}?app=com.example")
        assert r.status_code == 503 and r.headers["Retry-After"] and "\n" not in r.json()["error"]
        assert client.get("/methods?app=com.example&q=c").status_code == 503
        gate.set()
        settle(client)
        got = client.get(f"/api/methods/{key}?app=com.example")
        assert got.status_code == 200 and got.json()["builds"][0]["runs"][0]["trace_id"] == tid
