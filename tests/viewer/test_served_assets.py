"""The UI's page and assets as the viewer and the service answer them (viewer/served.py): every
module `app.js` imports is named by a `modulepreload` link in the page (so the browser fetches
them at once, not level by level), and the assets come from memory with an entity tag."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from support.viewer_trace import viewer_trace
from traceview.analysis.session import Session
from traceview.viewer.app import create_app
from traceview.viewer.assets import modules, static_dir
from traceview.viewer.served import Served

with warnings.catch_warnings():  # "use httpx2": not installed here; httpx works
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

PRELOAD = re.compile(r'<link rel="modulepreload" href="/static/([^"]+)">')


@pytest.fixture
def client() -> TestClient:
    return TestClient(create_app(Session(viewer_trace())), base_url="http://127.0.0.1")


def test_the_page_preloads_every_module_the_ui_imports(client: TestClient) -> None:
    page = client.get("/").text
    preloaded = PRELOAD.findall(page)
    every = {name for name, _ in modules(static_dir())} - {"app.js"}
    assert sorted(preloaded) == sorted(every)  # each once; no module of static/ is unused
    assert page.index("modulepreload") < page.index("</head>") < page.index('src="/static/app.js"')
    for name in preloaded:
        assert client.get(f"/static/{name}").status_code == 200, name


def test_assets_come_with_a_tag_and_answer_304_unchanged(client: TestClient) -> None:
    first = client.get("/static/lib/api.js")
    assert first.status_code == 200
    assert "javascript" in first.headers["content-type"]
    assert first.headers["cache-control"] == "no-cache"
    tag = first.headers["etag"]
    again = client.get("/static/lib/api.js", headers={"If-None-Match": tag})
    assert again.status_code == 304 and not again.content
    head = client.head("/static/lib/api.js")
    assert head.status_code == 200 and not head.content
    assert head.headers["content-length"] == str(len(first.content))
    assert client.get("/static/style.css").headers["content-type"].startswith("text/css")


def test_a_folder_without_an_index_serves_its_files(tmp_path: Path) -> None:
    (tmp_path / "a.js").write_text('import { b } from "./lib/b.js";\n')
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "b.js").write_text("export const b = 1;\n")
    (tmp_path / "lib" / "b.test.js").write_text("")
    served = Served(tmp_path)
    assert sorted(served.files) == ["a.js", "lib/b.js"]
    assert served.page().status_code == 200 and b"not installed" in served.page().body


def test_every_shipped_asset_has_its_media_type(monkeypatch: pytest.MonkeyPatch) -> None:
    """From the fixed table, whatever the system's `mimetypes` says (one that names `.js`
    otherwise would have the browser refuse every module under `nosniff`)."""
    import mimetypes

    monkeypatch.setattr(mimetypes, "guess_type", lambda *a, **k: ("text/plain", None))
    files = Served().files
    assert files
    for name, asset in files.items():
        assert asset.media_type != "application/octet-stream", name
    js = [a.media_type for n, a in files.items() if n.endswith(".js")]
    assert js and set(js) == {"text/javascript; charset=utf-8"}
