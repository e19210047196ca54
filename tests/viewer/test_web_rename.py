"""The viewer's app with a default renaming (`traceview view --mapping`): names and the
obfuscated ones in every answer."""

from __future__ import annotations

from starlette.testclient import TestClient

from support.tracebuild import make_trace
from traceview.analysis import Session
from traceview.analysis.rename import MappingRename
from traceview.readers.mapping import parse_mapping
from traceview.viewer.app import create_app

EVENTS = [
    (1, "enter", "a.b.run", 0, 0),
    (1, "enter", "a.b.c", 1, 2),
    (1, "exit", "a.b.c", 5, 9),
    (1, "exit", "a.b.run", 6, 12),
]
MAPPING = "com.app.Main -> a.b:\n    void work() -> c\n"


def test_app_answers_with_original_names() -> None:
    session = Session(make_trace(EVENTS, names={1: "main"}))
    rename = MappingRename(parse_mapping(MAPPING))
    client = TestClient(create_app(session, allowed_hosts=None, rename=rename))
    methods = client.get("/api/methods").json()
    work = methods["label"].index("com.app.Main.work ()V")
    assert methods["obfuscated"][work] == "a.b.c ()V"
    assert "com.app.Main.run ()V" in methods["label"]
    assert client.get("/api/profile").status_code == 200
