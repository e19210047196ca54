"""/api/trace and tiles of CPU-only corpus traces: the timeline axis is reconstructed from the
order of records and says so; wall traces keep the wall axis."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import traceview
from support.corpus import corpus_path
from support.viewer_trace import viewer_trace
from traceview.analysis.session import Session
from traceview.viewer.app import create_app

with warnings.catch_warnings():  # "use httpx2": not installed here; httpx works
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

CPU_ONLY = ["aosp-perflib/basic-api10.trace", "chanjin-traceviewlog/SNS_Tracing_2_Refresh.trace"]


def get(client: TestClient, url: str) -> dict[str, Any]:
    r = client.get(url)
    assert r.status_code == 200, (url, r.text)
    answer: dict[str, Any] = r.json()
    return answer


@pytest.mark.parametrize("name", CPU_ONLY)
def test_cpu_only_corpus_trace_has_a_reconstructed_axis(name: str) -> None:
    s = traceview.session(corpus_path(name))
    client = TestClient(create_app(s), base_url="http://127.0.0.1")
    t = get(client, "/api/trace")
    assert t["clocks"] == ["cpu"] and t["timeline_axis"] == "reconstructed"
    end = t["time"]["end_us"]
    # the axis spans the CPU time of every thread: their sum, not the longest one
    per_thread = [th["cpu_us"] for th in t["threads"] if th["records"]]
    assert end == pytest.approx(sum(per_thread), abs=0.01)
    busy = [th for th in t["threads"] if th["records"]]
    for th in busy:
        assert 0 <= th["start_us"] <= th["end_us"] <= end
        # each thread's own CPU time fits between its first and last record on the axis
        assert th["end_us"] - th["start_us"] >= th["cpu_us"] - 0.01
        tile = get(client, f"/api/timeline?thread={th['row']}&level=0&tile=0")
        starts, ends = np.array(tile["rects"]["start"]), np.array(tile["rects"]["end"])
        assert len(starts) or len(tile["merged"]["start"])
        if len(starts):
            assert bool(np.all(starts <= ends))
            assert starts.min() >= th["start_us"] - 0.01 and ends.max() <= th["end_us"] + 0.01
            wide = tile
    # the threads overlap on the axis only as their records interleave in the file
    spans = sorted((th["start_us"], th["end_us"]) for th in busy)
    assert spans[0][0] == 0.0
    # a call's answer places it on the same axis as its tile
    row = int(wide["rects"]["call"][0])
    call = get(client, f"/api/call/{row}")
    assert call["start_us"] == pytest.approx(wide["rects"]["start"][0], abs=0.01)
    assert call["end_us"] == pytest.approx(wide["rects"]["end"][0], abs=0.01)


def test_wall_trace_keeps_the_wall_axis() -> None:
    client = TestClient(create_app(Session(viewer_trace())), base_url="http://127.0.0.1")
    t = get(client, "/api/trace")
    assert t["timeline_axis"] == "wall" and t["timeline_clock"] == "wall"
