"""In Chromium: an attacker page on another loopback port can neither switch the trace the
viewer shows (before: a no-cors `text/plain` POST to /api/open did) nor read it, nor frame the
viewer; and the viewer itself runs under its real CSP without a console error."""

from __future__ import annotations

import http.server
import io
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.browserkit import open_page, serving, shot
from support.tracebuild import make_trace
from support.viewer_trace import viewer_trace
from traceview.writer import write

pytestmark = pytest.mark.browser

ATTACK = """<!doctype html><meta charset=utf-8><title>attacker</title><body>
<iframe id=frame src="{viewer}" width=400 height=300></iframe>
<script>
const target = "{viewer}";
const trace = new Uint8Array({trace});
window.results = {{}};
async function attack() {{
  try {{
    await fetch(target + "api/open", {{method: "POST", mode: "no-cors",
      headers: {{"Content-Type": "text/plain"}}, body: trace}});
    window.results.post = "sent";
  }} catch (e) {{ window.results.post = "blocked: " + e; }}
  try {{
    await fetch(target + "api/open", {{method: "POST", body: trace,
      headers: {{"X-Traceview": "1", "Content-Type": "application/octet-stream"}}}});
    window.results.preflighted = "sent";
  }} catch (e) {{ window.results.preflighted = "blocked"; }}
  try {{
    const r = await fetch(target + "api/trace");
    window.results.read = await r.text();
  }} catch (e) {{ window.results.read = "blocked"; }}
  window.results.done = true;
}}
attack();
</script>"""


def _trace_bytes() -> list[int]:
    buf = io.BytesIO()
    write(make_trace([(7, "enter", "x.Evil.run", 0, 0), (7, "exit", "x.Evil.run", 3, 5)]), buf)
    return list(buf.getvalue())


@pytest.fixture
def viewer_url(tmp_path: Path) -> Iterator[str]:
    path = tmp_path / "v.trace"
    write(viewer_trace(), path)
    with serving(path) as viewer:
        yield viewer.url


@pytest.fixture
def attacker(viewer_url: str) -> Iterator[str]:
    page = ATTACK.format(viewer=viewer_url, trace=_trace_bytes()).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://localhost:{server.server_address[1]}/"
    finally:
        server.shutdown()


def test_an_attacker_page_can_neither_switch_nor_read_nor_frame(
    browser: Any, viewer_url: str, attacker: str
) -> None:
    import httpx

    before = httpx.get(viewer_url + "api/trace").json()["threads"][0]["name"]
    page = browser.new_page()
    frame_errors: list[str] = []
    page.on("console", lambda m: frame_errors.append(m.text))
    page.goto(attacker)
    page.wait_for_function("window.results && window.results.done", timeout=20000)
    results = page.evaluate("window.results")
    shot(page, "attacker")
    page.close()
    assert results["read"] == "blocked"  # no CORS grant: the answer is unreadable
    assert results["preflighted"] == "blocked"  # the custom header needs a preflight: refused
    after = httpx.get(viewer_url + "api/trace").json()["threads"][0]["name"]
    assert after == before == "main"  # the trace was not switched
    assert any("frame-ancestors" in e or "refused to" in e.lower() for e in frame_errors)


def test_the_viewer_runs_under_its_own_csp(browser: Any, viewer_url: str) -> None:
    errors: list[str] = []
    page = open_page(browser, viewer_url, errors, bypass_csp=False)
    assert page.evaluate("document.body.dataset.ready") == "1"
    page.close()
    assert not [e for e in errors if "Content Security Policy" in e], errors
