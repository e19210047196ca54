"""Every route of the viewer's data API (docs/web-api.md) through Starlette's TestClient."""

from __future__ import annotations

import io
import json
import warnings
from typing import Any

import pytest

import traceview
from support.tracebuild import make_trace
from support.viewer_trace import EVIL_CLASS, EVIL_THREAD, viewer_trace
from traceview.analysis.session import Session
from traceview.exporters.jsonshape import PALETTE
from traceview.viewer.app import create_app
from traceview.writer import write

with warnings.catch_warnings():  # "use httpx2": not installed here; httpx works
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient


@pytest.fixture
def client() -> TestClient:
    trace = viewer_trace()
    trace.validate()
    return TestClient(create_app(Session(trace)), base_url="http://127.0.0.1")


def get(client: TestClient, url: str, status: int = 200) -> dict[str, Any]:
    r = client.get(url)
    assert r.status_code == status, (url, r.text)
    assert r.headers["content-type"].startswith("application/json")
    answer: dict[str, Any] = r.json()
    return answer


def test_trace_answer(client: TestClient) -> None:
    t = get(client, "/api/trace")
    assert t["clocks"] == ["cpu", "wall"] and t["default_clock"] == "cpu"
    assert t["timeline_clock"] == "wall" and t["live"] is True
    assert t["palette"] == PALETTE and len(PALETTE) == 16 and PALETTE[0] == "#5a5aff"
    # a hand-made trace without a start time: no place on CLOCK_MONOTONIC
    assert t["time"] == {
        "origin_us": 0.0,
        "start_us": 0.0,
        "end_us": 26000.0,
        "monotonic_ns": None,
    }
    main, worker = t["threads"]
    assert main["main"] and main["calls"] == 6 and main["records"] == 12
    assert main["cpu_us"] == 11.0 and main["wall_us"] == 26000.0
    assert worker["name"] == EVIL_THREAD and worker["label"] == EVIL_THREAD
    assert worker["start_us"] == 10.0 and worker["end_us"] == 1000.0
    assert set(t["header"]) >= {"variant", "version", "clock", "options", "record_size"}


def test_trace_answer_sends_the_tiling(client: TestClient) -> None:
    """The UI's tile maths read the tiling from here (static/timeline/tiles.js), as integers."""
    from traceview.analysis.kernels.tiling import BUCKETS, MAX_LEVEL

    tiles = get(client, "/api/trace")["tiles"]
    assert tiles == {"buckets": BUCKETS, "max_level": MAX_LEVEL}
    raw = client.get("/api/trace").text
    assert f'"buckets":{BUCKETS},' in raw.replace(" ", "")


def test_methods_names_come_back_as_plain_strings(client: TestClient) -> None:
    m = get(client, "/api/methods")
    assert m["class"][2] == EVIL_CLASS
    assert m["label"][2].startswith(EVIL_CLASS + ".run")
    assert len({len(v) for v in m.values()}) == 1
    # colours: round-robin in order of inclusive time (Looper.loop first), every method called
    assert m["color"][0] == 0 and sorted(m["color"]) == list(range(len(m["color"])))


def test_timeline_highlight_and_call(client: TestClient) -> None:
    tile = get(client, "/api/timeline?thread=0&level=0&tile=0")
    assert tile["t0"] == 0.0 and tile["t1"] == 26000.0
    rects = tile["rects"]
    assert rects["call"][:2] == [0, 1] and rects["depth"][:2] == [0, 1]
    assert len({len(v) for v in rects.values()}) == 1
    merged = tile["merged"]
    assert len({len(v) for v in merged.values()}) == 1
    assert sum(merged["count"]) + len(rects["call"]) == 6
    hl = get(client, "/api/highlight/1?thread=0&level=0&tile=0")
    assert len(hl["start"]) == 2 and hl["start"][0] == pytest.approx(0.0, abs=26)
    call = get(client, "/api/call/5")
    assert call["method"] == 4 and call["parent"] == 4 and call["thread"] == 0
    assert call["incl_wall_us"] == 9998.0 and call["incl_cpu_us"] == 1.0
    assert call["off_cpu_us"] == 9997.0 and call["flags"] == []
    assert call["start_us"] == 5002.0 and call["end_us"] == 15000.0


def test_profile_relations_flame_frames(client: TestClient) -> None:
    p = get(client, "/api/profile?clock=wall")
    cols = p["methods"]
    assert len({len(v) for v in cols.values()}) == 1
    assert cols["incl_wall_us"] == sorted(cols["incl_wall_us"], reverse=True)
    assert p["total"] == {"cpu_us": 17.0, "wall_us": 26990.0}
    r = get(client, "/api/relations/1?clock=cpu")
    assert [row["method"] for row in r["parents"]] == [0]
    assert r["parents"][0]["calls"] == 2 and r["parents"][0]["total_calls"] == 2
    assert {row["method"] for row in r["children"]} == {2, 3}
    assert r["self"]["method"] == 1
    for kind in ("graph", "topdown", "bottomup"):
        f = get(client, f"/api/flame?kind={kind}&clock=wall")
        assert f["kind"] == kind and len({len(v) for v in f["nodes"].values()}) == 1
        assert f["total"] == pytest.approx(26990.0)
    fr = get(client, "/api/frames?budget_ms=16")
    assert fr["kind"] == "doFrame" and fr["frames"] == 2 and fr["thread"] == 0
    assert fr["calls"]["call"] == [3] and fr["calls"]["wall_us"] == [20001.0]
    assert get(client, "/api/frames?budget_ms=1")["calls"]["call"] == [1, 3]


def test_filters_and_ranges(client: TestClient) -> None:
    mine = get(client, "/api/profile?clock=cpu&mycode=com.app")
    assert set(mine["methods"]["method"]) == {2, 3, 6}  # evil run, Foo.draw, Worker.go
    one = get(client, "/api/profile?clock=cpu&threads=1")
    assert set(one["methods"]["method"]) == {5, 6}
    rng = get(client, "/api/profile?clock=wall&t0=5000&t1=6000")
    assert rng["total"]["wall_us"] == pytest.approx(1000.0)
    flame = get(client, "/api/flame?kind=topdown&clock=cpu&mycode=com.app&threads=0")
    assert sorted(flame["nodes"]["method"]) == [2, 3]


@pytest.mark.parametrize(
    "url",
    [
        "/api/timeline?thread=9&level=0&tile=0",
        "/api/timeline?thread=0&level=2&tile=4",
        "/api/timeline?thread=0&level=x&tile=0",
        "/api/timeline?thread=0",
        "/api/highlight/999?thread=0&level=0&tile=0",
        "/api/call/999",
        "/api/profile?clock=bogus",
        "/api/profile?threads=0,7",
        "/api/profile?t0=10&t1=5",
        "/api/profile?t0=inf",
        "/api/profile?t0=nan",
        "/api/relations/999",
        "/api/flame?kind=sideways",
        "/api/frames?budget_ms=-1",
    ],
)
def test_bad_requests_are_400_with_one_line(client: TestClient, url: str) -> None:
    body = get(client, url, status=400)
    assert isinstance(body["error"], str) and "\n" not in body["error"]


def test_ui_and_static_files(client: TestClient) -> None:
    r = client.get("/")
    assert r.status_code == 200 and "<" in r.text
    assert client.get("/static/does-not-exist.js").status_code == 404
    assert client.get("/static/lib/api.js").status_code == 200  # modules in folders
    # the unit tests beside the modules and node's package.json are not the browser's
    for name in ("lib/api.test.js", "package.json", "timeline/../lib/format.test.js"):
        assert client.get("/static/" + name).status_code == 404, name


def test_open_replaces_the_trace(client: TestClient) -> None:
    other = make_trace([(7, "enter", "a.B.c", 0, 0), (7, "exit", "a.B.c", 3, 5)], names={7: "solo"})
    buf = io.BytesIO()
    write(other, buf)
    r = client.post(
        "/api/open",
        content=buf.getvalue(),
        headers={"X-Filename": "b%20c.trace", "X-Traceview": "1"},
    )
    assert r.status_code == 200, r.text
    assert r.json()["source"] == "b c.trace" and len(r.json()["threads"]) == 1
    assert get(client, "/api/trace")["threads"][0]["name"] == "solo"
    assert get(client, "/api/methods")["label"] == ["a.B.c ()V"]
    loaded = traceview.load(buf.getvalue())
    loaded.validate()


def test_open_rejects_a_bad_file(client: TestClient) -> None:
    r = client.post(
        "/api/open",
        content=b"not a trace at all",
        headers={"X-Filename": "x.trace", "X-Traceview": "1"},
    )
    assert r.status_code == 400
    assert "\n" not in r.json()["error"] and r.json()["error"]
    assert get(client, "/api/trace")["threads"][0]["name"] == "main"  # the old one stays


def test_host_guard() -> None:
    trace = viewer_trace()
    trace.validate()
    app = create_app(Session(trace), allowed_hosts=["127.0.0.1", "localhost"])
    c = TestClient(app, base_url="http://127.0.0.1:8000")
    assert c.get("/api/trace").status_code == 200
    assert c.get("/api/trace", headers={"host": "evil.example"}).status_code == 400


def test_answers_are_bounded(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    from traceview.viewer import answers

    monkeypatch.setattr(answers, "MAX_PROFILE_ROWS", 2)
    p = get(client, "/api/profile?clock=cpu&threads=0")
    assert len(p["methods"]["method"]) == 2 and p["truncated"] is True
    raw = client.get("/api/methods").content
    assert json.loads(raw)["class"][2] == EVIL_CLASS


def test_epoch_sized_times_keep_their_precision() -> None:
    base = 1_700_000_000_000_000  # µs since 1970: 1.7e18 ns, past float64's exact integers
    ev = [
        (1, "enter", "a.B.run", base + 1, base + 1),
        (1, "enter", "a.B.tiny", base + 2, base + 2),
        (1, "exit", "a.B.tiny", base + 3, base + 3),
        (1, "exit", "a.B.run", base + 2001, base + 2001),
    ]
    trace = make_trace(ev)
    trace.validate()
    c = TestClient(create_app(Session(trace)), base_url="http://127.0.0.1")
    tile = get(c, "/api/timeline?thread=0&level=0&tile=0")
    assert tile["rects"]["start"] == [0.0] and tile["rects"]["end"] == [2000.0]
    merged = tile["merged"]  # buckets of 2000/1024 µs: tiny (1 µs..2 µs) touches buckets 0-1
    # (run edges are rounded to about 1/100 of a bucket)
    assert merged["start"] == [0.0] and merged["end"] == [3.91] and merged["count"] == [1]
    hl = get(c, "/api/highlight/1?thread=0&level=0&tile=0")
    assert hl["start"] == [0.0] and hl["end"] == [3.906]
    assert get(c, "/api/call/1")["start_us"] == 1.0
