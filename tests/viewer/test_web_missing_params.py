"""A viewer request without a required parameter says which one is missing (issue 18:
`/api/timeline` without `thread` answered `{"error": "thread"}`)."""

from __future__ import annotations

import warnings

import pytest

from support.viewer_trace import viewer_trace
from traceview.analysis.session import Session
from traceview.viewer.app import create_app

with warnings.catch_warnings():  # "use httpx2": not installed here; httpx works
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient


@pytest.mark.parametrize(
    ("url", "missing"),
    [
        ("/api/timeline", "thread, level, tile"),
        ("/api/timeline?level=0&tile=0", "thread"),
        ("/api/timeline?thread=0&tile=0", "level"),
        ("/api/highlight/0?thread=0&level=0", "tile"),
    ],
)
def test_missing_parameter_is_named(url: str, missing: str) -> None:
    client = TestClient(create_app(Session(viewer_trace())), base_url="http://127.0.0.1")
    r = client.get(url)
    assert r.status_code == 400
    error = r.json()["error"]
    assert error.startswith(f"missing parameter {missing} ") and "thread&level&tile" in error
