"""`traceview report`: one self-contained HTML file, hostile names escaped, answers inlined."""

from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from support.report_data import keyed, report_answers, report_entries, request_key
from support.tracebuild import make_trace
from support.viewer_trace import EVIL_CLASS, EVIL_THREAD, viewer_trace
from traceview.analysis.session import Session
from traceview.cli import report as report_cli
from traceview.model import Trace
from traceview.viewer import page as html
from traceview.viewer import report
from traceview.viewer.assets import static_dir
from traceview.writer import write


@pytest.fixture(scope="module")
def page() -> str:
    trace = viewer_trace()
    trace.validate()
    session = Session(trace)
    return html.render(static_dir(), report.precompute(session, budget=200_000))


def inlined(page: str) -> dict[str, Any]:
    return report_answers(page)


def test_no_trace_text_can_close_a_script(page: str) -> None:
    data_block = re.search(r'id="traceview-data"[^>]*>(.*?)</script>', page, re.S)
    assert data_block is not None
    body = data_block.group(1)
    assert re.fullmatch(r"[A-Za-z0-9+/=]*", body)  # base64 of the gzipped JSON
    assert "\u2028" not in body and "\u2029" not in body
    assert "</script><script>alert" not in page
    assert EVIL_THREAD not in page


def test_answers_round_trip_hostile_names(page: str) -> None:
    data = inlined(page)
    assert data["/api/trace"]["live"] is False
    assert data["/api/trace"]["threads"][1]["name"] == EVIL_THREAD
    assert data["/api/methods"]["class"][2] == EVIL_CLASS
    for key in (
        "/api/profile?clock=cpu",
        "/api/profile?clock=wall",
        "/api/flame?clock=wall&kind=graph",
        "/api/tree?clock=cpu&kind=bottomup&limit=2000",
        "/api/frames?budget_ms=16",
        "/api/relations/0?clock=cpu",
        "/api/timeline?level=0&thread=0&tile=0",
        "/api/timeline?level=0&thread=1&tile=0",
        "/api/highlight/0?level=0&thread=0&tile=0",
        "/api/call/0",
    ):
        assert key in data, key
    assert data["/api/trace"]["report"]["timeline_levels"] >= 1


def test_modules_are_inlined_with_rewritten_imports(page: str) -> None:
    m = re.search(r'<script type="importmap">(.*?)</script>', page, re.S)
    assert m is not None
    imports = json.loads(m.group(1))["imports"]
    static = static_dir()
    names = sorted(
        p.relative_to(static).as_posix()
        for p in static.rglob("*.js")
        if not p.name.endswith(".test.js")
    )
    assert any("/" in n for n in names)  # the UI has folders, and they are packed
    assert sorted(k.removeprefix("traceview:") for k in imports) == names
    for url in imports.values():
        assert url.startswith("data:text/javascript;base64,")
        js = base64.b64decode(url.split(",", 1)[1]).decode()
        assert not re.search(r"""(from|import)\s*\(?\s*["']\.\.?/""", js)
        for spec in re.findall(r"""^(?:import|export)\b[^"'\n]*["']([^"']+)["']""", js, re.M):
            assert spec in imports, spec  # every import names a packed module
    assert not re.search(r"<script[^>]*\bsrc=", page)  # nothing fetched from disk
    assert not re.search(r"<link[^>]*stylesheet", page)
    assert page.index('id="traceview-data"') < page.index('<script type="module">')
    assert "node:test" not in page  # the unit tests stay out


def test_package_rewrites_specifiers(tmp_path: Path) -> None:
    (tmp_path / "a.js").write_text("import { b } from \"./b.js\";\nexport * from './c.js';\n")
    (tmp_path / "b.js").write_text("export const b = 1;")
    (tmp_path / "c.js").write_text('import("./b.js");')
    (tmp_path / "s.css").write_text("body { color: red } /* </style> */")
    page = html.package(
        '<link rel="stylesheet" href="/static/s.css"><script type="module" src="/static/a.js">'
        "</script>",
        tmp_path,
        [["/k", {"a": 1}, "</script>"]],
    )
    importmap = re.search(r'importmap">(.*?)</script>', page, re.S)
    assert importmap is not None
    imports = json.loads(importmap.group(1))["imports"]
    a = base64.b64decode(imports["traceview:a.js"].split(",", 1)[1]).decode()
    assert '"traceview:b.js"' in a and '"traceview:c.js"' in a
    c = base64.b64decode(imports["traceview:c.js"].split(",", 1)[1]).decode()
    assert c == 'import("traceview:b.js");'
    assert "<style>" in page and "<\\/style>" in page
    assert '<script type="module">import "traceview:a.js";</script>' in page
    assert inlined(page) == {"/k?a=1": "</script>"}


def _module(page: str, key: str) -> str:
    importmap = re.search(r'importmap">(.*?)</script>', page, re.S)
    assert importmap is not None
    imports = json.loads(importmap.group(1))["imports"]
    return base64.b64decode(imports[key].split(",", 1)[1]).decode()


def test_package_follows_folders(tmp_path: Path) -> None:
    """`./dir/x.js` and `../x.js` resolve against the importing module's folder to one key
    per file (a module imported two ways is still one module), and unit tests stay out."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "panels").mkdir()
    (tmp_path / "app.js").write_text('import "./panels/p.js";\nimport { s } from "./lib/s.js";\n')
    (tmp_path / "lib" / "s.js").write_text("export const s = {};")
    (tmp_path / "lib" / "s.test.js").write_text('import { test } from "node:test";')
    (tmp_path / "panels" / "p.js").write_text(
        'import { s } from "../lib/s.js";\nimport { q } from "./q.js";\n'
        'export { s } from "../panels/../lib/s.js";\n'
    )
    (tmp_path / "panels" / "q.js").write_text("export const q = 1;")
    page = html.package('<script type="module" src="/static/app.js"></script>', tmp_path, {})
    importmap = re.search(r'importmap">(.*?)</script>', page, re.S)
    assert importmap is not None
    imports = json.loads(importmap.group(1))["imports"]
    keys = {"traceview:app.js", "traceview:lib/s.js", "traceview:panels/p.js"}
    assert set(imports) == keys | {"traceview:panels/q.js"}
    assert _module(page, "traceview:app.js") == (
        'import "traceview:panels/p.js";\nimport { s } from "traceview:lib/s.js";\n'
    )
    assert _module(page, "traceview:panels/p.js") == (
        'import { s } from "traceview:lib/s.js";\nimport { q } from "traceview:panels/q.js";\n'
        'export { s } from "traceview:lib/s.js";\n'
    )


@pytest.mark.parametrize("spec", ["./missing.js", "../../outside.js", "../x/../../up.js"])
def test_package_refuses_a_module_it_cannot_find(tmp_path: Path, spec: str) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "a.js").write_text(f'import "{spec}";')
    with pytest.raises(ValueError, match=re.escape(spec)):
        html.package("<body></body>", tmp_path, {})


def test_tile_budget_is_respected() -> None:
    trace = viewer_trace()
    trace.validate()
    small = keyed(report.precompute(Session(trace), budget=0))
    assert not any(k.startswith("/api/timeline") for k in small)
    assert small["/api/trace"]["report"]["timeline_levels"] == 0


def test_cli_writes_the_report(tmp_path: Path) -> None:
    trace = viewer_trace()
    trace.validate()
    buf = io.BytesIO()
    write(trace, buf)
    src = tmp_path / "in.trace"
    src.write_bytes(buf.getvalue())
    out = tmp_path / "out.html"
    assert report_cli.main([str(src), "-o", str(out), "--budget-mb", "0.1"]) == 0
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<!doctype html") or text.lower().startswith("<!doctype html")
    assert inlined(text)["/api/trace"]["live"] is False


def _tiny_calls_trace() -> Trace:
    """One long call holding 300 one-tick calls and 50 zero-length ones, spread out."""
    ev = [(1, "enter", "com.app.Main.run", 0, 0)]
    for i in range(300):
        t = 1000 + i * 997
        ev += [(1, "enter", "com.app.Tiny.a", t, t), (1, "exit", "com.app.Tiny.a", t + 1, t + 1)]
    for i in range(50):
        t = 1500 + i * 5003
        ev += [(1, "enter", "com.app.Zero.z", t, t), (1, "exit", "com.app.Zero.z", t, t)]
    ev.sort(key=lambda e: e[4])
    ev.append((1, "exit", "com.app.Main.run", 400_000, 400_000))
    return make_trace(ev, names={1: "main"})


def test_small_report_stops_at_complete_tiles() -> None:
    trace = _tiny_calls_trace()
    trace.validate()
    out = keyed(report.precompute(Session(trace)))
    tiles = {
        (int(m["level"]), int(m["tile"])): v
        for k, v in out.items()
        if (
            m := re.fullmatch(r"/api/timeline\?level=(?P<level>\d+)&thread=0&tile=(?P<tile>\d+)", k)
        )
    }
    levels = out["/api/trace"]["report"]["timeline_levels"]
    assert 0 < levels < 41 and max(lv for lv, _ in tiles) == levels - 1
    for (lv, k), ans in tiles.items():
        if lv:  # only the children of an incomplete tile are held
            assert not tiles[(lv - 1, k // 2)].get("complete")
        if not ans.get("complete"):  # an incomplete tile has both children
            assert (lv + 1, 2 * k) in tiles and (lv + 1, 2 * k + 1) in tiles
        elif not ans["merged"]["depth"]:
            assert not ans["truncated"]
    # every tile without children is complete: a finer view is drawn from it
    leaves = [a for (lv, k), a in tiles.items() if (lv + 1, 2 * k) not in tiles]
    assert leaves and all(a.get("complete") for a in leaves)


def test_partial_budget_keeps_whole_levels_per_thread() -> None:
    from traceview.exporters.jsonshape import encode

    trace = _tiny_calls_trace()
    trace.validate()
    session = Session(trace)
    full = keyed(report.precompute(session))
    total = sum(len(encode(v)) for k, v in full.items() if k.startswith("/api/timeline"))
    budget = total // 3
    out = keyed(report.precompute(session, budget=budget))
    held = {k: v for k, v in out.items() if k.startswith("/api/timeline")}
    assert 0 < sum(len(encode(v)) for v in held.values()) <= budget
    for ans in held.values():  # a tile is held only under an incomplete held parent
        lv, k = ans["level"], ans["tile"]
        if lv:
            up = f"/api/timeline?level={lv - 1}&thread={ans['thread']}&tile={k // 2}"
            assert up in held and not held[up].get("complete")
    assert len(held) < sum(k.startswith("/api/timeline") for k in full)


def test_report_answers_are_the_servers(page: str) -> None:
    """Each answer a report holds is what the live server answers to the same request (the
    URL the UI would send: its path and parameters), the report's marks aside."""
    import warnings
    from urllib.parse import urlencode

    from traceview.viewer.app import create_app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        from starlette.testclient import TestClient

    trace = viewer_trace()
    trace.validate()
    client = TestClient(create_app(Session(trace)), base_url="http://127.0.0.1")
    held = inlined(page)
    entries = report_entries(page)
    assert len(held) == len(entries) > 20  # one entry per request
    for path, params, _ in entries:
        key = request_key(path, params)
        url = path + ("?" + urlencode(params) if params else "")
        live = client.get(url)
        assert live.status_code == 200, url
        want, got = live.json(), held[key]
        if path == "/api/trace":
            assert got.pop("live") is False and want.pop("live") is True
            assert got.pop("can_open") is False and want.pop("can_open") is True
            assert got.pop("report")["timeline_levels"] >= 1
        got.pop("complete", None)
        assert json.loads(json.dumps(got)) == want, url
