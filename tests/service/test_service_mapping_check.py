"""`PUT /api/traces/<id>/mapping` checks the mapping the way uploads are checked (issue 18): in
the child process of service/probe.py, with its memory cap and time limit, never in the server
(the parser holds the GIL: a quadratic line stalled every other request for 45 s); its
errors are one line with undecodable bytes as `\\xNN`."""

from __future__ import annotations

import io
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

import traceview.readers.mapping
from support.obfuscate import obfuscate
from traceview.service.probe import Limits, Rejected, probe
from traceview.service.routes import Config, create_service
from traceview.service.store import SqliteStore
from traceview.synth import generate
from traceview.writer import write

with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

WRITE = {"X-Traceview": "1", "X-Filename": "mapping.txt"}


@pytest.fixture(scope="module")
def build() -> tuple[bytes, str]:
    """(obfuscated trace bytes, its mapping.txt)."""
    obf, mapping = obfuscate(generate(records=3000, threads=2, seed=5), "q")
    out = io.BytesIO()
    write(obf, out)
    return out.getvalue(), mapping


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    store = SqliteStore(tmp_path / "data")
    app = create_service(store, allowed_hosts=("127.0.0.1",), config=Config())
    try:
        with TestClient(app, base_url="http://127.0.0.1") as c:
            yield c
    finally:
        store.close()


def upload(client: TestClient, data: bytes) -> str:
    r = client.post("/api/traces", content=data, headers=WRITE)
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def test_the_mapping_is_parsed_in_the_child_not_the_server(
    client: TestClient, build: tuple[bytes, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data, mapping = build
    trace_id = upload(client, data)

    def in_server(*args: object, **kw: object) -> None:
        raise AssertionError("the mapping was parsed in the server process")

    monkeypatch.setattr(traceview.readers.mapping, "parse_mapping", in_server)
    r = client.put(f"/api/traces/{trace_id}/mapping", content=mapping.encode(), headers=WRITE)
    assert r.status_code == 200, r.text
    assert r.json() == {"id": trace_id, "mapping": True, "notes": 0}


def test_a_bad_mapping_is_one_line_with_bytes_as_xNN(
    client: TestClient, build: tuple[bytes, str]
) -> None:
    trace_id = upload(client, build[0])
    r = client.put(f"/api/traces/{trace_id}/mapping", content=b"hello \x84 x\n", headers=WRITE)
    assert r.status_code == 400
    error = r.json()["error"]
    assert error.startswith("mapping.txt: not a ProGuard/R8 mapping file (line 1)"), error
    assert "'hello \\x84 x'" in error and "\\udc84" not in error and "\n" not in error


def test_the_child_answers_for_a_mapping_within_its_limits(tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text("a.B -> c:\n    void run() -> a\nq.R -> d:\n")
    assert probe(str(good), Limits(), "mapping") == {"classes": 2, "notes": 0}
    # a class line of blanks is refused by the child in one line (that the parser is linear
    # in such lines is counted, not timed: tests/hardening/test_hardening_mapping.py)
    blanks = tmp_path / "blanks.txt"
    blanks.write_bytes(b"a" + b" " * 4096)
    with pytest.raises(Rejected, match="not a ProGuard/R8 mapping file"):
        probe(str(blanks), Limits(), "mapping")
