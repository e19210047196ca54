"""`traceview serve` with a ProGuard/R8 mapping: `PUT /api/traces/<id>/mapping` after an upload
makes that trace's viewer show the original names (the obfuscated ones stay visible); a bad
mapping is one line; the token and the write guard apply; a restart keeps it."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from support.obfuscate import obfuscated_app
from traceview.service.routes import Config, create_service
from traceview.service.store import SqliteStore

with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

WRITE = {"X-Traceview": "1"}


@contextmanager
def service(root: Path, token: str | None = None) -> Iterator[TestClient]:
    store = SqliteStore(root)
    app = create_service(store, allowed_hosts=("127.0.0.1",), config=Config(token=token))
    try:
        with TestClient(app, base_url="http://127.0.0.1") as client:
            yield client
    finally:
        store.close()


@pytest.fixture(scope="module")
def build() -> tuple[bytes, str, set[str]]:
    """(obfuscated trace bytes, its mapping.txt, the original class names)."""
    trace, data, mapping = obfuscated_app(seed=5)
    return data, mapping, set(trace.methods.class_name)


def classes(client: TestClient, trace_id: str) -> set[str]:
    return set(client.get(f"/t/{trace_id}/api/methods").json()["class"])


def test_a_mapping_renames_an_uploaded_trace(
    tmp_path: Path, build: tuple[bytes, str, set[str]]
) -> None:
    data, mapping, originals = build
    with service(tmp_path / "data") as client:
        up = client.post("/api/traces", content=data, headers={**WRITE, "X-Filename": "r.trace"})
        trace_id = up.json()["id"]
        before = classes(client, trace_id)
        assert not before >= originals  # obfuscated names before
        r = client.put(f"/api/traces/{trace_id}/mapping", content=mapping.encode(), headers=WRITE)
        assert r.status_code == 200, r.text
        after = client.get(f"/t/{trace_id}/api/methods").json()
        assert set(after["class"]) >= originals - {""}
        assert any(after["obfuscated"])  # the obfuscated name stays visible
        assert client.get("/api/traces").json()["traces"][0]["mapping"] is True
    with service(tmp_path / "data") as client:  # a restart keeps it
        assert classes(client, trace_id) >= originals - {""}


def test_bad_or_unguarded_mappings_are_refused(
    tmp_path: Path, build: tuple[bytes, str, set[str]]
) -> None:
    data, mapping, _ = build
    with service(tmp_path / "data", token="s3cret") as client:
        auth = {**WRITE, "Authorization": "Bearer s3cret"}
        trace_id = client.post("/api/traces", content=data, headers=auth).json()["id"]
        url = f"/api/traces/{trace_id}/mapping"
        assert client.put(url, content=mapping.encode(), headers=WRITE).status_code == 401
        evil = {**auth, "Origin": "http://evil.example"}
        assert client.put(url, content=mapping.encode(), headers=evil).status_code == 403
        bad = client.put(url, content=b"\x00\x01 not a mapping \xff", headers=auth)
        assert bad.status_code == 400 and "\n" not in bad.json()["error"]
        assert client.put(url, content=b"", headers=auth).status_code == 400
        missing = client.put("/api/traces/" + "0" * 64 + "/mapping", content=b"x", headers=auth)
        assert missing.status_code == 404
