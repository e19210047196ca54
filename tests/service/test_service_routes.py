"""Every route and error of the trace service (service/routes.py) through Starlette's TestClient:
upload (raw, gzip, multipart, twice), listing, viewer under /t/<id>/, flame SVGs, report,
delete, and the refusals: 413 while streaming (chunked too), 400 for non-traces, the token,
cross-origin writes, bad ids."""

from __future__ import annotations

import gzip
import hashlib
import io
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypedDict, Unpack

import pytest
from starlette.applications import Starlette

from support.viewer_trace import EVIL_CLASS, EVIL_THREAD, viewer_trace
from traceview.service.probe import Limits
from traceview.service.routes import Config, create_service
from traceview.service.store import SqliteStore, StoreBusy
from traceview.synth import generate
from traceview.writer import write

with warnings.catch_warnings():  # "use httpx2": not installed here; httpx works
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

WRITE = {"X-Traceview": "1"}


def trace_bytes(seed: int = 1, records: int = 4000) -> bytes:
    out = io.BytesIO()
    write(generate(records=records, threads=3, seed=seed), out)
    return out.getvalue()


def evil_bytes() -> bytes:
    out = io.BytesIO()
    write(viewer_trace(), out)
    return out.getvalue()


class ConfigArgs(TypedDict, total=False):
    """The `Config` fields a test sets (the rest keep their defaults)."""

    max_upload: int
    token: str | None
    memory_budget: int
    limits: Limits
    pending: int
    dataset: Path | None


@contextmanager
def make_client(root: Path, **config: Unpack[ConfigArgs]) -> Iterator[TestClient]:
    store = SqliteStore(root)
    app = create_service(store, allowed_hosts=("127.0.0.1",), config=Config(**config))
    try:
        with TestClient(app, base_url="http://127.0.0.1") as client:
            yield client
    finally:
        feed = getattr(app.state, "feed", None)
        if feed is not None:  # its start-up sync uses the store: done first
            feed.ready.wait(300)  # (seconds: a hang guard only)
        store.close()


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(tmp_path / "data") as c:
        yield c


def upload(
    client: TestClient, data: bytes, name: str = "app.trace", **headers: str
) -> dict[str, Any]:
    r = client.post("/api/traces", content=data, headers={**WRITE, "X-Filename": name, **headers})
    assert r.status_code in (200, 201), r.text
    answer: dict[str, Any] = r.json()
    return answer


def test_upload_answers_the_id_and_url_and_lists_it(client: TestClient) -> None:
    data = trace_bytes()
    got = upload(client, data, "my%20app.trace")
    assert got["id"] == hashlib.sha256(data).hexdigest()
    assert got["url"] == f"/t/{got['id']}/" and got["stored"] is True
    assert got["name"] == "my app.trace" and got["size"] == len(data) and got["threads"] == 3
    assert got["variant"] and got["duration_us"] > 0
    listed = client.get("/api/traces").json()
    assert [t["id"] for t in listed["traces"]] == [got["id"]]
    assert listed["token_required"] is False
    assert client.get(f"/api/traces/{got['id']}").json()["name"] == "my app.trace"


def test_same_bytes_are_stored_once(client: TestClient, tmp_path: Path) -> None:
    data = trace_bytes()
    first = upload(client, data)
    again = client.post("/api/traces", content=data, headers={**WRITE, "X-Filename": "b.trace"})
    assert again.status_code == 200 and again.json()["stored"] is False
    assert again.json()["id"] == first["id"]
    assert len(client.get("/api/traces").json()["traces"]) == 1
    assert len(list((tmp_path / "data" / "traces").glob("*/*"))) == 1


def test_gzip_and_multipart_uploads(client: TestClient) -> None:
    data = trace_bytes(seed=2)
    zipped = gzip.compress(data)
    got = upload(client, zipped, "a.trace.gz")
    assert got["id"] == hashlib.sha256(zipped).hexdigest() and got["threads"] == 3
    pytest.importorskip("python_multipart")
    data3 = trace_bytes(seed=3)
    r = client.post("/api/traces", files={"file": ("c/d\\e.trace", data3)}, headers=WRITE)
    assert r.status_code == 201, r.text
    assert r.json()["name"] == "e.trace" and r.json()["id"] == hashlib.sha256(data3).hexdigest()
    r = client.post("/api/traces", data={"x": "1"}, files={}, headers=WRITE)
    assert r.status_code == 400


def test_not_a_trace_is_400_with_one_line(client: TestClient, tmp_path: Path) -> None:
    r = client.post("/api/traces", content=b"hello, not a trace\n" * 50, headers=WRITE)
    assert r.status_code == 400
    error = r.json()["error"]
    assert "\n" not in error and error.startswith("upload.trace: at byte 0: ")
    assert str(tmp_path) not in error and "staging" not in error
    assert client.post("/api/traces", content=b"", headers=WRITE).status_code == 400
    assert client.get("/api/traces").json()["traces"] == []
    assert list((tmp_path / "data" / "staging").iterdir()) == []


def test_analysis_over_its_limits_is_reported(tmp_path: Path) -> None:
    with make_client(tmp_path / "d1", limits=Limits(seconds=0.01)) as c:
        r = c.post("/api/traces", content=trace_bytes(), headers=WRITE)
        assert r.status_code == 400 and "longer than" in r.json()["error"]
    with make_client(tmp_path / "d2", limits=Limits(memory=64 << 20)) as c:
        r = c.post("/api/traces", content=trace_bytes(), headers=WRITE)
        assert r.status_code == 400 and "memory" in r.json()["error"]


def test_upload_over_the_limit_is_413_while_streaming(tmp_path: Path) -> None:
    with make_client(tmp_path / "data", max_upload=10_000) as c:
        r = c.post("/api/traces", content=b"x" * 20_000, headers=WRITE)
        assert r.status_code == 413
        sent = 0

        def chunks() -> Iterator[bytes]:  # no Content-Length: refused after the limit passes
            nonlocal sent
            for _ in range(100):
                sent += 4096
                yield b"y" * 4096

        r = c.post("/api/traces", content=chunks(), headers=WRITE)
        assert r.status_code == 413 and "too large" in r.json()["error"]
        r = c.post("/api/traces", files={"f": ("a.trace", b"z" * 20_000)}, headers=WRITE)
        assert r.status_code in (413, 415)  # 415 without python-multipart
        assert list((tmp_path / "data" / "staging").iterdir()) == []
        assert c.get("/api/traces").json()["traces"] == []


def test_too_many_uploads_in_flight_is_503(tmp_path: Path) -> None:
    with make_client(tmp_path / "data", pending=0) as c:
        r = c.post("/api/traces", content=trace_bytes(), headers=WRITE)
        assert r.status_code == 503 and r.headers["retry-after"] == "5"


def test_token_guards_upload_and_delete(tmp_path: Path) -> None:
    with make_client(tmp_path / "data", token="s3cret") as c:
        data = trace_bytes()
        assert c.post("/api/traces", content=data, headers=WRITE).status_code == 401
        bad = {**WRITE, "Authorization": "Bearer nope"}
        assert c.post("/api/traces", content=data, headers=bad).status_code == 401
        good = {**WRITE, "Authorization": "Bearer s3cret"}
        tid = c.post("/api/traces", content=data, headers=good).json()["id"]
        assert c.get("/api/traces").json()["token_required"] is True
        assert c.get(f"/t/{tid}/api/trace").status_code == 200  # reading needs no token
        assert c.delete(f"/api/traces/{tid}", headers=WRITE).status_code == 401
        assert c.delete(f"/api/traces/{tid}", headers=good).status_code == 200


def test_cross_origin_writes_are_refused(client: TestClient) -> None:
    data = trace_bytes()
    assert client.post("/api/traces", content=data).status_code == 403  # no X-Traceview
    evil = {**WRITE, "Origin": "http://evil.example"}
    assert client.post("/api/traces", content=data, headers=evil).status_code == 403
    site = {**WRITE, "Sec-Fetch-Site": "cross-site"}
    assert client.post("/api/traces", content=data, headers=site).status_code == 403
    tid = upload(client, data)["id"]
    assert client.delete(f"/api/traces/{tid}", headers=evil).status_code == 403
    assert client.get("/", headers={"Host": "evil.example"}).status_code == 400


def test_viewer_is_mounted_per_trace(client: TestClient) -> None:
    tid = upload(client, trace_bytes())["id"]
    r = client.get(f"/t/{tid}", follow_redirects=False)
    assert r.status_code == 308 and r.headers["location"] == f"/t/{tid}/"
    page = client.get(f"/t/{tid}/")
    assert page.status_code == 200 and 'src="/static/app.js"' in page.text
    assert '<link rel="modulepreload" href="/static/lib/api.js">' in page.text  # viewer/served.py
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert page.headers["content-security-policy"].count("default-src") == 1
    assert client.get("/static/lib/api.js").status_code == 200
    trace = client.get(f"/t/{tid}/api/trace").json()
    assert trace["source"] == "app.trace" and len(trace["threads"]) == 3
    assert client.get(f"/t/{tid}/api/methods").status_code == 200
    assert "methods" in client.get(f"/t/{tid}/api/profile?clock=wall").json()
    bad = client.get(f"/t/{tid}/api/profile?clock=nope")
    assert bad.status_code == 400
    r = client.post(f"/t/{tid}/api/open", content=trace_bytes(seed=9), headers=WRITE)
    assert r.status_code == 405 and "start page" in r.json()["error"]


def test_flames_report_and_escaping(client: TestClient) -> None:
    tid = upload(client, evil_bytes(), "<b>x<i>&.trace")["id"]
    listed = client.get("/api/traces").json()["traces"][0]
    assert listed["name"] == "<b>x<i>&.trace"  # JSON; the page sets it as text
    svg = client.get(f"/t/{tid}/flame/0.svg")
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    assert "<svg" in svg.text and "alert`1`</script>" not in svg.text  # names escaped
    assert "default-src 'none'" in svg.headers["content-security-policy"]  # no network
    assert "&lt;" in svg.text and "<rect" in svg.text
    import xml.dom.minidom

    xml.dom.minidom.parseString(svg.content)  # well-formed whatever the names hold
    threads = client.get(f"/t/{tid}/api/trace").json()["threads"]
    evil_row = next(t["row"] for t in threads if t["name"] and "main" in t["name"])
    page = client.get(f"/t/{tid}/flames")
    assert page.status_code == 200 and f"flame/{evil_row}.svg" in page.text
    assert EVIL_THREAD not in page.text and "<b onmouseover" not in page.text
    assert "<b>x<i>" not in page.text
    assert client.get(f"/t/{tid}/flame/99.svg").status_code == 404
    report = client.get(f"/t/{tid}/report.html")
    assert report.status_code == 200 and "attachment" in report.headers["content-disposition"]
    assert 'id="traceview-data"' in report.text and EVIL_CLASS not in report.text


def test_delete_removes_file_row_and_viewer(client: TestClient, tmp_path: Path) -> None:
    tid = upload(client, trace_bytes())["id"]
    assert client.get(f"/t/{tid}/api/trace").status_code == 200
    assert client.delete(f"/api/traces/{tid}", headers=WRITE).json() == {"deleted": tid}
    assert client.get("/api/traces").json()["traces"] == []
    assert client.get(f"/t/{tid}/api/trace").status_code == 404
    assert client.get(f"/t/{tid}/flame/0.svg").status_code == 404
    assert client.delete(f"/api/traces/{tid}", headers=WRITE).status_code == 404
    assert list((tmp_path / "data" / "traces").glob("*/*")) == []


@pytest.mark.parametrize(
    "path", ["/t/..%2F..%2Fetc%2Fpasswd/", "/t/abc/", "/t/" + "A" * 64 + "/", "/api/traces/zz"]
)
def test_ids_are_hashes_never_paths(client: TestClient, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 404
    assert client.get(f"/t/{'0' * 64}/report.html").status_code == 404


def test_upload_page(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "/service/uploads.js" in page.text
    assert client.get("/service/uploads.js").status_code == 200


def test_restart_keeps_everything(tmp_path: Path) -> None:
    with make_client(tmp_path / "data") as c:
        tid = upload(c, trace_bytes())["id"]
    with make_client(tmp_path / "data") as c:
        assert [t["id"] for t in c.get("/api/traces").json()["traces"]] == [tid]
        assert c.get(f"/t/{tid}/api/trace").status_code == 200


def test_one_service_per_data_folder(tmp_path: Path) -> None:
    with make_client(tmp_path / "data"), pytest.raises(StoreBusy):
        SqliteStore(tmp_path / "data")
    SqliteStore(tmp_path / "data").close()  # free again once the first one closed


def test_crash_leftovers_are_cleared_on_open(tmp_path: Path) -> None:
    with make_client(tmp_path / "data") as c:
        tid = upload(c, trace_bytes())["id"]
    root = tmp_path / "data"
    (root / "staging" / "upload-half").write_bytes(b"half an upload")
    orphan = root / "traces" / "ab" / ("ab" + "0" * 62)  # renamed, row never committed
    orphan.parent.mkdir(exist_ok=True)
    orphan.write_bytes(b"x")
    with make_client(root) as c:
        assert [t["id"] for t in c.get("/api/traces").json()["traces"]] == [tid]
    assert not orphan.exists() and list((root / "staging").iterdir()) == []
    assert (root / "orphans" / orphan.name).read_bytes() == b"x"  # set aside, not destroyed


def test_memory_budget_evicts_old_sessions(tmp_path: Path) -> None:
    with make_client(tmp_path / "data", memory_budget=1) as c:
        a = upload(c, trace_bytes(seed=1))["id"]
        b = upload(c, trace_bytes(seed=2))["id"]
        assert c.get(f"/t/{a}/api/trace").status_code == 200
        assert c.get(f"/t/{b}/api/trace").status_code == 200
        assert isinstance(c.app, Starlette)
        sessions = c.app.state.sessions
        assert list(sessions.sizes()) == [b] and sessions.sizes()[b] > 0
        assert c.get(f"/t/{a}/api/trace").status_code == 200  # reopened from disk


@pytest.mark.parametrize("given", ["..", ".", "a/..", "%2E%2E", "  ...  "])
def test_a_name_of_dots_is_kept_as_upload_trace(client: TestClient, given: str) -> None:
    """An upload named `.` or `..` (a folder's name, never a file's) is kept as
    `upload.trace`: the name is written as a link's name in the dataset's staging."""
    got = upload(client, trace_bytes(), given)
    assert got["name"] == "upload.trace"
