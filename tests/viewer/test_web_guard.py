"""The viewer's defences (viewer/guard.py, viewer/cache.py, viewer/params.py) against the measured
defects: a cross-origin no-cors `text/plain` POST replaced the trace; the upload limit was
only checked against Content-Length (a chunked upload was buffered whole); the answer cache
was keyed on any parameter; `--host 0.0.0.0` turned the Host check off; the viewer could be
framed and had no `nosniff`."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from support.tracebuild import make_trace
from support.viewer_trace import viewer_trace
from traceview.analysis import Session
from traceview.cli.view import allowed_hosts
from traceview.viewer.app import create_app
from traceview.writer import write

LOCAL = "http://127.0.0.1:8000"


def other_trace() -> bytes:
    buf = io.BytesIO()
    write(make_trace([(7, "enter", "a.B.c", 0, 0), (7, "exit", "a.B.c", 3, 5)]), buf)
    return buf.getvalue()


@pytest.fixture
def client() -> TestClient:
    return TestClient(create_app(Session(viewer_trace())), base_url=LOCAL)


def source(client: TestClient) -> str | None:
    name: str | None = client.get("/api/trace").json()["threads"][0]["name"]
    return name


def test_cross_origin_simple_post_cannot_switch_the_trace(client: TestClient) -> None:
    before = source(client)
    # what a hostile page's `fetch(url, {mode: "no-cors", method: "POST", body})` sends
    evil = {"Origin": "http://evil.example", "Content-Type": "text/plain"}
    assert client.post("/api/open", content=other_trace(), headers=evil).status_code == 403
    site = {"Sec-Fetch-Site": "cross-site", "X-Traceview": "1"}
    assert client.post("/api/open", content=other_trace(), headers=site).status_code == 403
    # no Origin, no custom header (e.g. a form post from a sandboxed page): refused too
    assert client.post("/api/open", content=other_trace()).status_code == 403
    assert source(client) == before
    ok = {"Origin": LOCAL, "Sec-Fetch-Site": "same-origin", "X-Traceview": "1"}
    assert client.post("/api/open", content=other_trace(), headers=ok).status_code == 200
    assert source(client) != before


def test_upload_limit_is_enforced_while_the_body_streams() -> None:
    app = create_app(Session(viewer_trace()), max_upload=1 << 20)
    client = TestClient(app, base_url=LOCAL)
    sent = []

    def chunks() -> Iterator[bytes]:  # no Content-Length: chunked transfer
        for _ in range(64):
            sent.append(1)
            yield b"\0" * (64 << 10)

    r = client.post("/api/open", content=chunks(), headers={"X-Traceview": "1"})
    assert r.status_code == 413 and "too large" in r.json()["error"]
    big = {"X-Traceview": "1", "Content-Length": str(2 << 20)}
    assert client.post("/api/open", content=b"x" * (2 << 20), headers=big).status_code == 413


def test_junk_parameters_neither_grow_the_cache_nor_change_answers(client: TestClient) -> None:
    assert isinstance(client.app, Starlette)
    state = client.app.state.viewer
    first = client.get("/api/profile?clock=cpu").json()
    size = len(state.answers)
    for i in range(50):
        r = client.get(f"/api/profile?clock=cpu&junk{i}=x{i}")
        assert r.json() == first
    assert len(state.answers) == size
    same = client.get("/api/profile?clock=cpu&threads=1,0,1").json()
    assert len(state.answers) == size + 1  # threads normalised: one more key, not one per order
    assert client.get("/api/profile?clock=cpu&threads=0,1").json() == same
    assert len(state.answers) == size + 1


def test_a_non_loopback_host_keeps_the_host_check() -> None:
    hosts = allowed_hosts("0.0.0.0", ["trace-box.lan"])
    app = create_app(Session(viewer_trace()), allowed_hosts=hosts)
    client = TestClient(app, base_url=LOCAL)
    assert client.get("/api/trace").status_code == 200
    assert client.get("/api/trace", headers={"Host": "trace-box.lan:8000"}).status_code == 200
    assert client.get("/api/trace", headers={"Host": "rebound.evil.example"}).status_code == 400


def test_security_headers_on_every_answer(client: TestClient) -> None:
    for url in ("/", "/api/trace", "/static/app.js", "/api/profile?clock=nope"):
        r = client.get(url)
        assert "frame-ancestors 'none'" in r.headers["content-security-policy"], url
        assert r.headers["x-frame-options"] == "DENY"
        assert r.headers["x-content-type-options"] == "nosniff"


def test_the_cli_selection_spelled_in_a_url(client: TestClient) -> None:
    """`thread=NAME|ID` and `from`/`to` with units select what `--thread`/`--from`/`--to` do."""
    by_row = client.get("/api/profile?clock=wall&threads=0&t0=1&t1=20000").json()
    by_name = client.get("/api/profile?clock=wall&thread=main&from=1us&to=20ms").json()
    assert by_name == by_row
    bad = client.get("/api/profile?thread=nosuch")
    assert bad.status_code == 400 and "no thread named" in bad.json()["error"]
