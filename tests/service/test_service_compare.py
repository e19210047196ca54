"""The service's labels and comparisons (service/compare.py, store.py): labels on upload
(validated: known keys, bounded, no path separators), listed; `/compare/<id>/<id>/` and N vs N
by label sets (`/compare/build:100/build:101/`, and `/compare?base=…&cand=…` redirecting
there); "Compare with…" on a trace page (stores the upload, answers the compare URL); a shared
comparison refuses changes; names escaped; deletion drops the comparisons holding a trace."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from test_service_routes import WRITE, make_client, upload

from support.plant import ALWAYS, planted_bytes
from traceview.service.compare import MAX_RUNS, parse_side

Runs = tuple[list[bytes], list[bytes]]


@pytest.fixture(scope="module")
def runs() -> Runs:
    """Two runs per side of the planted scenario, as files' bytes."""
    return planted_bytes(runs=2)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(tmp_path / "data") as c:
        yield c


def labelled(client: TestClient, data: bytes, name: str, **labels: str) -> dict[str, Any]:
    query = "&".join(f"{k}={v}" for k, v in labels.items())
    r = client.post(f"/api/traces?{query}", content=data, headers={**WRITE, "X-Filename": name})
    assert r.status_code in (200, 201), r.text
    answer: dict[str, Any] = r.json()
    return answer


def test_labels_are_stored_validated_and_listed(client: TestClient, runs: Runs) -> None:
    one = labelled(client, runs[0][0], "a.trace", app="com.example", build="100", device="px 7")
    listed = client.get("/api/traces").json()["traces"]
    assert listed[0]["labels"] == {"app": "com.example", "build": "100", "device": "px 7"}
    assert client.get(f"/api/traces/{one['id']}").json()["labels"]["build"] == "100"
    # the same bytes again with another label: labels merge, nothing stored twice
    again = labelled(client, runs[0][0], "a.trace", branch="main")
    assert again["stored"] is False
    assert client.get(f"/api/traces/{one['id']}").json()["labels"]["branch"] == "main"
    for bad in ("build=a%2Fb", "build=a%5Cb", "build=a,b", "build=" + "9" * 65, "build=a%0Ab"):
        r = client.post(f"/api/traces?{bad}", content=runs[0][1], headers=WRITE)
        assert r.status_code == 400, (bad, r.text)
        assert "\n" not in r.json()["error"]
    assert len(client.get("/api/traces").json()["traces"]) == 1  # refused before storing


def test_compare_two_uploads_by_id(client: TestClient, runs: Runs) -> None:
    a = upload(client, runs[0][0], "base.trace")["id"]
    b = upload(client, runs[1][0], "cand<i>.trace")["id"]
    r = client.get(f"/compare?base={a}&cand={b}", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/compare/{a}/{b}/"
    page = client.get(f"/compare/{a}/{b}/")
    assert page.status_code == 200 and "app.js" in page.text
    trace = client.get(f"/compare/{a}/{b}/api/trace").json()
    assert trace["compare"]["baseline"] == ["base.trace"]
    assert trace["compare"]["candidate"] == ["cand<i>.trace"]  # JSON: escaped by the page
    m = client.get(f"/compare/{a}/{b}/api/compare").json()["methods"]
    i = next(k for k, s in enumerate(m["label"]) if s.startswith(ALWAYS + " "))
    assert m["state"][i] == "slower"
    cand = client.get(f"/compare/{a}/{b}/api/trace?side=cand").json()
    assert cand["compare"]["side"] == "cand"
    # a shared comparison is not changed by one visitor
    assert client.post(f"/compare/{a}/{b}/api/open", content=b"x", headers=WRITE).status_code == 405
    assert client.get(f"/compare/{a}/{'0' * 64}/").status_code == 404
    assert client.get("/compare?base=../etc&cand=x").status_code == 400


def test_n_vs_n_by_label_sets(client: TestClient, runs: Runs) -> None:
    for i, data in enumerate(runs[0]):
        labelled(client, data, f"b{i}.trace", app="demo", build="100")
    for i, data in enumerate(runs[1]):
        labelled(client, data, f"c{i}.trace", app="demo", build="101")
    r = client.get("/compare?base=build:100&cand=app:demo,build:101", follow_redirects=False)
    assert r.headers["location"] == "/compare/build:100/app:demo,build:101/"
    url = r.headers["location"]
    trace = client.get(url + "api/trace").json()
    assert sorted(trace["compare"]["baseline"]) == ["b0.trace", "b1.trace"]
    assert sorted(trace["compare"]["candidate"]) == ["c0.trace", "c1.trace"]
    a = client.get(url + "api/compare").json()
    assert a["spread_known"] is True and len(a["baseline"]) == 2
    assert client.get("/compare/build:999/build:101/").status_code == 404
    assert client.get("/compare/owner:x/build:101/").status_code == 400
    assert MAX_RUNS >= 2
    # deleting a run drops the comparisons that hold it
    gone = client.get("/api/traces").json()["traces"][0]["id"]
    assert client.delete(f"/api/traces/{gone}", headers=WRITE).status_code == 200
    again = client.get(url + "api/trace").json()
    assert len(again["compare"]["baseline"]) + len(again["compare"]["candidate"]) == 3


def test_compare_with_on_a_trace_page(client: TestClient, runs: Runs) -> None:
    a = upload(client, runs[0][0], "base.trace")["id"]
    r = client.post(
        f"/t/{a}/api/compare/open",
        content=runs[1][0],
        headers={**WRITE, "X-Filename": "new.trace"},
    )
    assert r.status_code == 200, r.text
    other = r.json()["id"]
    assert r.json()["redirect"] == f"/compare/{a}/{other}/"
    assert client.get(r.json()["redirect"] + "api/compare").status_code == 200
    # cross-origin writes are refused as everywhere
    refused = client.post(f"/t/{a}/api/compare/open", content=runs[1][1])
    assert refused.status_code == 403
    assert (
        client.post(f"/t/{'f' * 64}/api/compare/open", content=b"x", headers=WRITE).status_code
        == 404
    )


def test_side_specs() -> None:
    assert parse_side("a" * 64) == "a" * 64
    assert parse_side("build:100,app:x") == {"build": "100", "app": "x"}
    for bad in ("", "build", "../x", "build:a/b", "name:x"):
        with pytest.raises(ValueError):
            parse_side(bad)


@pytest.mark.browser
def test_compare_with_in_the_browser(browser: Any, runs: Runs, tmp_path: Path) -> None:
    """On a stored trace's page, "Compare with…" uploads the other trace and lands on the
    shareable compare page, whose Diff tab lists the planted slow-down first."""
    from support.browserkit import open_page, shot, start_app
    from traceview.service.routes import create_service
    from traceview.service.store import SqliteStore

    store = SqliteStore(tmp_path / "data")
    viewer = start_app(create_service(store))
    try:
        url = viewer.url.rstrip("/")
        import httpx

        headers = {**WRITE, "X-Filename": "base.trace"}
        r = httpx.post(url + "/api/traces", content=runs[0][0], headers=headers, timeout=120)
        tid = r.json()["id"]
        other = tmp_path / "cand.trace"
        other.write_bytes(runs[1][0])
        errors: list[str] = []
        pg = open_page(browser, f"{url}/t/{tid}/", errors)
        pg.set_input_files("#compare-file", str(other))
        pg.wait_for_url("**/compare/*/*/", timeout=60_000)
        pg.wait_for_selector("body[data-ready]", state="attached", timeout=30_000)
        pg.click("[data-tab=diff]")
        pg.wait_for_selector("#tab-diff .diff-table tbody tr")
        first = pg.locator("#tab-diff .diff-table tbody tr").first.text_content() or ""
        assert ALWAYS in first
        assert "cand.trace" in (pg.locator("#cand-name").text_content() or "")
        shot(pg, "service-compare")
        pg.close()
        assert not errors, errors
    finally:
        viewer.stop()
        store.close()


@pytest.mark.browser
def test_labels_and_compare_form_in_the_browser(browser: Any, runs: Runs, tmp_path: Path) -> None:
    """The start page under its real CSP: label two uploads (build 100 and 101), see the
    labels listed, compare the two label sets with the form."""
    from support.browserkit import shot, start_app
    from traceview.service.routes import create_service
    from traceview.service.store import SqliteStore

    store = SqliteStore(tmp_path / "data")
    viewer = start_app(create_service(store))
    errors: list[str] = []
    page = browser.new_page(viewport={"width": 1300, "height": 900})  # the real CSP
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    try:
        url = viewer.url.rstrip("/")
        for build, data, name in (("100", runs[0][0], "b.trace"), ("101", runs[1][0], "c.trace")):
            path = tmp_path / name
            path.write_bytes(data)
            page.goto(url + "/")
            page.fill("#label-app", "demo")
            page.fill("#label-build", build)
            page.set_input_files("#file", str(path))
            page.wait_for_url("**/t/*/", timeout=60_000)
        page.goto(url + "/")
        page.wait_for_selector("#traces td.labels")
        labels = page.eval_on_selector_all("#traces td.labels", "ts => ts.map(t => t.textContent)")
        assert sorted(labels) == ["app:demo, build:100", "app:demo, build:101"]
        page.fill("#compare input[name=base]", "build:100")
        page.fill("#compare input[name=cand]", "app:demo,build:101")
        page.click("#compare button")
        page.wait_for_url("**/compare/build:100/app:demo,build:101/", timeout=30_000)
        page.wait_for_selector("body[data-ready]", state="attached", timeout=30_000)
        page.click("[data-tab=diff]")
        page.wait_for_selector("#tab-diff .diff-table tbody tr")
        assert ALWAYS in (page.locator("#tab-diff .diff-table tbody tr").first.text_content() or "")
        shot(page, "service-compare-labels")
    finally:
        page.close()
        viewer.stop()
        store.close()
    assert not errors, errors
