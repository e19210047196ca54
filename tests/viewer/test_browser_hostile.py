"""Hostile names (`<script>`, `</script>`, quotes, `&`, event-handler markup) in methods and
threads render as plain text in every view of the live viewer and of the HTML report, and
nothing in them runs (`window.__pwned` stays unset, no injected elements)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.browserkit import (
    Viewer,
    fetch_json,
    open_page,
    serving,
    settle,
    shot,
    table_names,
)
from support.report_data import make_report, report_answers
from support.tracebuild import make_trace
from traceview.readers import load

pytestmark = pytest.mark.browser

EVIL_CLASS = "com.evil.Cls<script>window['__pwned']=0<script>"  # '/' would become '.'
SCRIPT_METHOD = "</script><script>window['__pwned']=1</script>"
EVIL_METHOD = "<img src=x onerror=\"window['__pwned']=2\">"
AMP_METHOD = "a&amp;b&lt;c&gt;'q'"
EVIL_THREAD = "<script>window['__pwned']=3</script>"
QUOTE_THREAD = "\"quoted\" & <b>bold</b> 'single'"


def hostile_trace(path: Path) -> Path:
    from traceview.writer import write

    run = f"{EVIL_CLASS}.{SCRIPT_METHOD}"
    img = f"com.evil.Img.{EVIL_METHOD}"
    amp = f"com.evil.Amp.{AMP_METHOD}"
    trace = make_trace(
        [
            (1, "enter", run, 0, 0),
            (1, "enter", img, 2, 3),
            (1, "enter", amp, 3, 5),
            (1, "exit", amp, 9, 14),
            (1, "exit", img, 12, 20),
            (1, "exit", run, 15, 30),
            (2, "enter", amp, 1, 1),
            (2, "exit", amp, 4, 8),
        ],
        names={1: EVIL_THREAD, 2: QUOTE_THREAD},
    )
    write(trace, path)
    load(path).validate()
    return path


@pytest.fixture(scope="module")
def evil(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return hostile_trace(tmp_path_factory.mktemp("evil") / "evil.trace")


@pytest.fixture(scope="module")
def viewer(evil: Path) -> Iterator[Viewer]:
    with serving(evil) as v:
        yield v


def check_page(page: Any, labels: list[str], name: str) -> None:
    """Every view shows the names as text and nothing injected ran or appeared."""
    page.wait_for_selector("#tab-profile .pt-row.method")
    shown = table_names(page)
    assert shown and all(s in labels for s in shown)
    assert any(EVIL_METHOD in s for s in shown)
    assert any("</script>" in s for s in shown)
    threads = page.locator("#timeline .tl-label .tl-name").all_text_contents()
    assert EVIL_THREAD in threads and QUOTE_THREAD in threads
    rows = page.locator("#tab-profile .pt-row.method")
    for k in range(rows.count()):
        rows.nth(k).locator(".twisty").click()
    settle(page)
    for tab in ("flame", "topdown", "bottomup", "chart", "frames", "header", "profile"):
        page.click(f".tabs button[data-tab={tab}]")
        settle(page)
        if tab == "header":
            text = page.locator("#tab-header").text_content() or ""
            assert EVIL_THREAD in text and QUOTE_THREAD in text
    page.fill("#find", "<img")
    settle(page)
    assert all("<img" in s for s in table_names(page))
    shot(page, name)
    assert page.evaluate("window.__pwned") is None
    assert page.locator("img").count() == 0
    assert page.locator("b").count() == 0
    assert page.evaluate("document.querySelectorAll('script:not([type])').length") == 0


def test_live_viewer_escapes_names(browser: Any, viewer: Viewer) -> None:
    errors: list[str] = []
    page = open_page(browser, viewer.url, errors)
    labels = [str(s) for s in fetch_json(viewer, "/api/methods")["label"]]
    check_page(page, labels, "hostile-live")
    page.close()
    assert not errors, errors


def test_report_escapes_names(browser: Any, evil: Path, tmp_path: Path) -> None:
    report = make_report(evil, tmp_path / "evil.html")
    html = report.read_text(encoding="utf-8")
    assert "<script>window['__pwned']" not in html
    errors: list[str] = []
    page = open_page(browser, report.as_uri(), errors)
    labels = report_answers(html)["/api/methods"]["label"]
    check_page(page, labels, "hostile-report")
    page.close()
    assert not errors, errors
