"""The trace service in headless Chromium: upload a trace with the start page's file picker
(under the real CSP), land on its viewer at /t/<id>/ (every API call under that prefix), open
its flame graphs page and one thread's SVG; the single-trace viewer still works at /."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.browserkit import open_page, settle, shot, start_app, watch
from support.viewer_trace import EVIL_THREAD, viewer_trace
from traceview.synth import generate
from traceview.writer import write

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from traceview.service.routes import create_service
    from traceview.service.store import SqliteStore

    store = SqliteStore(tmp_path_factory.mktemp("data"))
    viewer = start_app(create_service(store))
    yield viewer.url.rstrip("/")
    viewer.stop()
    store.close()


def test_upload_then_view_then_flame(browser: Any, service: str, tmp_path: Path) -> None:
    path = tmp_path / "checkout.trace"
    write(generate(records=20_000, threads=4, seed=5), path)
    errors: list[str] = []
    page = watch(browser.new_page(viewport={"width": 1300, "height": 800}), errors)  # real CSP
    failed: list[str] = []  # a browser asks for /favicon.ico beside a bare SVG: not ours
    page.on(
        "response",
        lambda r: failed.append(r.url) if r.status >= 400 and "favicon" not in r.url else None,
    )
    page.goto(service + "/")
    page.wait_for_selector("#empty:not([hidden])")
    page.set_input_files("#file", str(path))
    page.wait_for_url("**/t/*/", timeout=60_000)
    page.wait_for_selector("body[data-ready]", state="attached", timeout=30_000)
    trace_id = page.url.split("#")[0].rstrip("/").rsplit("/", 1)[-1]  # the view follows "#"
    assert len(trace_id) == 64
    assert page.text_content("#source") and "checkout.trace" in page.text_content("#source")
    settle(page)
    shot(page, "service-viewer")
    assert errors == []

    page.goto(service + "/")
    page.wait_for_selector("#traces tbody tr")
    assert "checkout.trace" in page.text_content("#traces tbody")
    shot(page, "service-start")

    page.goto(f"{service}/t/{trace_id}/flames")
    page.wait_for_selector("img")
    page.wait_for_function("() => [...document.images].every(i => i.complete && i.naturalWidth)")
    shot(page, "service-flames", full=True)
    page.goto(f"{service}/t/{trace_id}/flame/0.svg")
    assert page.locator("rect").count() > 10
    shot(page, "service-flame-svg")
    assert failed == []
    assert [e for e in errors if not e.startswith("Failed to load resource")] == []


def test_hostile_names_stay_text(browser: Any, service: str, tmp_path: Path) -> None:
    path = tmp_path / "<img src=x onerror=alert(1)>.trace"
    write(viewer_trace(), path)
    page = browser.new_page()
    dialogs: list[str] = []

    def dismiss(d: Any) -> None:
        dialogs.append(d.message)
        d.dismiss()

    page.on("dialog", dismiss)
    page.goto(service + "/")
    page.set_input_files("#file", str(path))
    page.wait_for_url("**/t/*/", timeout=60_000)
    page.wait_for_selector("body[data-ready]", state="attached", timeout=30_000)
    trace_id = page.url.split("#")[0].rstrip("/").rsplit("/", 1)[-1]  # the view follows "#"
    page.goto(service + "/")
    page.wait_for_selector("#traces tbody tr")
    assert page.locator("#traces img").count() == 0
    page.goto(f"{service}/t/{trace_id}/flames")
    assert page.locator("b").count() == 0 and EVIL_THREAD not in page.content()
    assert dialogs == []


DROP = """([name, b64]) => {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const data = new DataTransfer();
  data.items.add(new File([bytes], name));
  const zone = document.getElementById("drop");
  zone.dispatchEvent(new DragEvent("dragover", { dataTransfer: data, bubbles: true }));
  zone.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true }));
}"""


def test_drag_and_drop(browser: Any, service: str, tmp_path: Path) -> None:
    import base64
    import io

    page = browser.new_page(viewport={"width": 1100, "height": 500})
    page.goto(service + "/")
    page.wait_for_selector("#traces")
    page.evaluate(DROP, ["notes.txt", base64.b64encode(b"just some notes\n" * 20).decode()])
    page.wait_for_selector("#status.error")
    status = page.text_content("#status") or ""
    assert status.startswith("Upload refused: notes.txt: at byte 0: not an Android method trace")
    assert "\n" not in status
    shot(page, "service-drop-refused")
    out = io.BytesIO()
    write(generate(records=3000, threads=2, seed=11), out)
    page.evaluate(DROP, ["dropped.trace", base64.b64encode(out.getvalue()).decode()])
    page.wait_for_url("**/t/*/", timeout=60_000)
    page.wait_for_selector("body[data-ready]", state="attached", timeout=30_000)
    assert "dropped.trace" in (page.text_content("#source") or "")


def test_service_viewer_links_and_flames(browser: Any, service: str, tmp_path: Path) -> None:
    """Issue 22, items 7 and 10: no dead "Open…" in a trace's viewer (it answered 405), a link
    of the view reopens it under the trace's own URL, /flames ranks threads by time and draws
    roots on top as the viewer does."""
    import re

    path = tmp_path / "ranked.trace"
    write(generate(records=20_000, threads=6, seed=11), path)
    errors: list[str] = []
    # waits poll with eval, which the CSP forbids (the other test runs under the real CSP)
    page = browser.new_page(viewport={"width": 1300, "height": 800}, bypass_csp=True)
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    page.goto(service + "/")
    page.wait_for_selector("#file", state="attached")
    page.set_input_files("#file", str(path))
    page.wait_for_url("**/t/*/", timeout=60_000)
    page.wait_for_selector("body[data-ready]", state="attached", timeout=30_000)
    assert page.locator("#open-btn").is_hidden()
    page.click('.tabs button[data-tab="bottomup"]')
    page.wait_for_function("location.hash.includes('tab=bottomup')")
    link = page.url
    base = link.split("#")[0]
    again = open_page(browser, link, errors)
    again.wait_for_selector("#tab-bottomup .ct-row")
    assert again.locator('.tabs button[data-tab="bottomup"]').get_attribute("class") == "on"
    again.close()

    page.goto(base + "flames")
    times = [
        float(m.group(1).replace(",", ""))
        for m in re.finditer(r"\(([\d,.]+) ms \w+,", page.text_content("body") or "")
    ]
    assert len(times) >= 2 and times == sorted(times, reverse=True), times
    page.goto(base + "flame/0.svg")
    ys = page.evaluate(
        """() => { const d = JSON.parse(document.getElementById('flame-data').textContent);
        const g = [...document.querySelectorAll('#frames > g')];
        const y = (i) => +g[i].querySelector('rect').getAttribute('y');
        let root = 1e9, deep = -1;
        g.forEach((_, i) => { if (d.d[i] === 0) root = Math.min(root, y(i));
                              else deep = Math.max(deep, y(i)); });
        return [root, deep]; }"""
    )
    assert ys[0] < ys[1], ys  # roots on top
    page.close()
    assert [e for e in errors if not e.startswith("Failed to load resource")] == []
