"""The viewer's compare mode through Starlette's TestClient: the single-trace answers of
either side (`side=`), /api/compare, /api/compare/flame and /api/compare/paths from
`analysis.compare`, and `POST /api/compare/open` (guarded like /api/open)."""

from __future__ import annotations

import io
import warnings
from typing import Any

import pytest

from support.plant import ALWAYS, planted_runs
from traceview.analysis.compare import compare
from traceview.analysis.diff import Thresholds
from traceview.analysis.session import Session
from traceview.viewer.app import create_app
from traceview.viewer.comparing import Sides
from traceview.writer import write

with warnings.catch_warnings():  # "use httpx2": not installed here; httpx works
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient


Runs = tuple[list[Session], list[Session]]


@pytest.fixture(scope="module")
def runs() -> Runs:
    base, cand = planted_runs(runs=3)
    return [Session(t) for t in base], [Session(t) for t in cand]


@pytest.fixture(scope="module")
def client(runs: tuple[list[Session], list[Session]]) -> TestClient:
    base, cand = runs
    app = create_app(base[0], sides=Sides(tuple(base), tuple(cand)))
    return TestClient(app, base_url="http://127.0.0.1")


def get(client: TestClient, url: str, status: int = 200) -> dict[str, Any]:
    r = client.get(url)
    assert r.status_code == status, (url, r.text)
    answer: dict[str, Any] = r.json()
    return answer


def test_each_side_answers_its_own_trace(client: TestClient) -> None:
    b = get(client, "/api/trace")
    c = get(client, "/api/trace?side=cand")
    assert b["compare"]["side"] == "base" and c["compare"]["side"] == "cand"
    assert len(b["compare"]["baseline"]) == 3 and len(b["compare"]["candidate"]) == 3
    assert b["time"]["end_us"] != c["time"]["end_us"]  # two traces, two lengths
    tile = get(client, "/api/timeline?side=cand&thread=0&level=0&tile=0")
    assert tile == get(client, "/api/timeline?side=cand&tile=0&level=0&thread=0")
    assert tile != get(client, "/api/timeline?thread=0&level=0&tile=0")
    assert "side must be" in get(client, "/api/trace?side=other", 400)["error"]


def test_compare_answer_is_the_comparisons(client: TestClient, runs: Runs) -> None:
    base, cand = runs
    a = get(client, "/api/compare")
    c = compare(base, cand, Thresholds())
    m = a["methods"]
    assert len(m["label"]) == len(c.methods)
    i = next(k for k, s in enumerate(m["label"]) if s.startswith(ALWAYS + " "))
    assert m["state"][i] == "slower" and m["excl_sig"][i] is True
    assert m["excl_rel"][i] == pytest.approx(100.0, abs=15)
    assert m["base_method"][i] >= 0 and m["cand_method"][i] >= 0
    names = get(client, "/api/methods")["label"]
    cand_names = get(client, "/api/methods?side=cand")["label"]
    assert names[m["base_method"][i]] == cand_names[m["cand_method"][i]]
    assert sum(a["states"].values()) == len(c.methods)
    # largest change of the metric first
    d = [abs(x) for x in m["excl_delta"]]
    assert d == sorted(d, reverse=True)
    assert get(client, "/api/compare?metric=incl")["metric"] == "incl"
    assert "metric must be" in get(client, "/api/compare?metric=x", 400)["error"]


def test_flame_and_paths(client: TestClient) -> None:
    f = get(client, "/api/compare/flame")
    n = f["nodes"]
    assert f["side"] == "candidate" and len(n["depth"]) > 10
    assert set(n["state"]) <= {"new", "gone", "slower", "faster", "noise"}
    roots = [i for i, d in enumerate(n["depth"]) if d == 0]
    assert sum(n["width"][i] for i in roots) == pytest.approx(f["total"], rel=1e-3)
    b = get(client, "/api/compare/flame?width=baseline")
    assert b["side"] == "baseline" and b["total"] < f["total"]  # the candidate is slower
    assert "side must be" in get(client, "/api/compare/flame?width=x", 400)["error"]
    p = get(client, "/api/compare/paths")
    assert p["paths"]["line"] and any(ALWAYS.rpartition(".")[2] in s for s in p["paths"]["line"])


def test_compare_open_loads_the_candidate() -> None:
    base, cand = planted_runs(runs=1)  # fresh traces: a served session keeps only the times
    app = create_app(Session(base[0]))
    client = TestClient(app, base_url="http://127.0.0.1")
    assert "no trace to compare" in get(client, "/api/compare", 400)["error"]
    assert "compare" not in get(client, "/api/trace")
    buf = io.BytesIO()
    write(cand[0], buf)
    body = buf.getvalue()
    refused = client.post("/api/compare/open", content=body)  # no X-Traceview: a cross-site form
    assert refused.status_code == 403
    r = client.post(
        "/api/compare/open",
        content=body,
        headers={"X-Traceview": "1", "X-Filename": "new%3Cb%3E.trace"},
    )
    assert r.status_code == 200, r.text
    assert r.json()["compare"]["candidate"] == ["new<b>.trace"]
    assert get(client, "/api/trace")["compare"]["side"] == "base"
    m = get(client, "/api/compare")["methods"]
    assert any(s.startswith(ALWAYS + " ") for s in m["label"])
    bad = client.post("/api/compare/open", content=b"junk", headers={"X-Traceview": "1"})
    assert bad.status_code == 400 and "\n" not in bad.json()["error"]


def test_compare_report_answers_are_the_servers(client: TestClient, runs: Runs) -> None:
    """Each answer the compare report holds (viewer/compare_report.py) is what the live
    compare server answers to the same request (its path and parameters, `side=cand` for the
    candidate's), the report's marks aside."""
    import json
    from urllib.parse import urlencode

    from traceview.viewer.compare_report import precompute_compare

    base, cand = runs
    entries = precompute_compare(Sides(tuple(base), tuple(cand)), budget=1 << 20)
    paths = {p for p, _, _ in entries}
    assert {"/api/compare", "/api/compare/flame", "/api/compare/paths"} <= paths
    assert any(p.startswith("/api/first/") for p in paths)
    assert any(params.get("side") == "cand" for p, params, _ in entries if p == "/api/timeline")
    for path, params, held in entries:
        url = path + ("?" + urlencode(params) if params else "")
        live = client.get(url)
        assert live.status_code == 200, url
        want, got = live.json(), json.loads(json.dumps(held))
        if path == "/api/trace":
            assert got.pop("live") is False and want.pop("live") is True
            assert got.pop("can_open") is False and want.pop("can_open") is True
            got.pop("report")
        if path == "/api/timeline" and got.pop("packed", False):
            continue  # delta-coded for the page (api.js unpacks it; tested there)
        got.pop("complete", None)
        assert got == want, url
