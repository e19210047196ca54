"""The viewer on an ANR report: /api/anr (what was open and slow at the dump), the header's
processes, and POST /api/process switching to another process's dump of the same report."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from traceview.analysis.session import Session
from traceview.readers import load
from traceview.viewer.app import create_app
from traceview.writer.lowoverhead.anr import ProcessText, anr_report
from traceview.writer.lowoverhead.art import ArtRun, Method

with warnings.catch_warnings():  # "use httpx2": not installed here; httpx works
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

HZ = 24_576_000
LOOP, WORK = Method(0x7000_0000, "android.os.Looper", "loop"), Method(0x7000_0010, "a.B", "work")


def dump(seconds: int) -> bytes:
    """main: Looper.loop, in which `work` runs `seconds` s, then another still open."""
    run, t = ArtRun(), 10**11
    run.start(100, "main", [LOOP], t)
    run.enter(100, WORK, t)
    run.exit(100, t := t + seconds * HZ)
    run.enter(100, WORK, t := t + 1)
    return run.dump(t + HZ, to="anr")


@pytest.fixture
def report(tmp_path: Path) -> Path:
    path = tmp_path / "anr_2025-07-01"
    path.write_bytes(
        anr_report([ProcessText(100, "com.a", dump(2)), ProcessText(200, "com.b", dump(3))])
    )
    return path


def client_for(path: Path) -> TestClient:
    app = create_app(Session(load(path)), reopen=lambda i: Session(load(path, process=f"#{i}")))
    return TestClient(app, base_url="http://127.0.0.1")


def test_anr_answer_and_process_switch(report: Path) -> None:
    client = client_for(report)
    header = client.get("/api/trace").json()["header"]
    assert [p["name"] for p in header["processes"]] == ["com.a", "com.b"] and header["process"] == 0
    anr = client.get("/api/anr").json()
    assert anr["process"] == {"name": "com.a", "pid": 100}
    assert [f["method"] for f in anr["open"][0]["frames"]] == [
        "android.os.Looper.loop ()V",
        "a.B.work ()V",
    ]
    assert [round(c["duration_us"] / 1e6) for c in anr["slow"]] == [2]
    refused = client.post("/api/process?pick=1")  # no X-Traceview header: refused by the guard
    assert refused.status_code == 403
    switched = client.post("/api/process?pick=1", headers={"X-Traceview": "1"})
    assert switched.status_code == 200 and switched.json()["header"]["process"] == 1
    anr = client.get("/api/anr").json()
    assert anr["process"]["name"] == "com.b" and [
        round(c["duration_us"] / 1e6) for c in anr["slow"]
    ] == [3]
    bad = client.post("/api/process?pick=7", headers={"X-Traceview": "1"})
    assert bad.status_code == 400 and "pick must be 0 to 1" in bad.json()["error"]


def test_no_switch_without_a_way_to_reopen(report: Path) -> None:
    client = TestClient(create_app(Session(load(report))), base_url="http://127.0.0.1")
    r = client.post("/api/process?pick=1", headers={"X-Traceview": "1"})
    assert r.status_code == 400 and "cannot switch" in r.json()["error"]


def test_clock_monotonic_in_the_answers(report: Path) -> None:
    """/api/trace puts the axis on CLOCK_MONOTONIC (the dump's summary packet); /api/anr gives
    each open call's start there and says the open calls were still running ("≥")."""
    client = client_for(report)
    trace = load(report)
    h, origin = trace.header, Session(trace).origin
    assert h.monotonic_offset_ns is not None and h.end_ns is not None
    time = client.get("/api/trace").json()["time"]
    assert time["monotonic_ns"] == origin + h.monotonic_offset_ns
    anr = client.get("/api/anr").json()
    assert anr["dump_monotonic_ns"] == h.end_ns + h.monotonic_offset_ns
    frames = anr["open"][0]["frames"]
    assert all(f["open"] and f["at_least"] for f in frames)
    for f in frames:  # the same instant on both time bases
        assert f["start_monotonic_ns"] == time["monotonic_ns"] + round(f["start_us"] * 1000)


def test_no_monotonic_time_without_an_anchor(tmp_path: Path) -> None:
    from traceview.synth import generate
    from traceview.writer import write

    path = tmp_path / "cpu.trace"
    write(generate(400, threads=2, seed=1, clock="thread-cpu"), path)
    client = client_for(path)
    assert client.get("/api/trace").json()["time"]["monotonic_ns"] is None
