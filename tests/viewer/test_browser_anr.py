"""The viewer's ANR tab on an ANR report (headless Chromium): the stacks open at the dump, the
slow calls, and the process picker switching to another dump of the report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from support.browserkit import open_page, shot, start_app
from traceview.analysis.session import Session
from traceview.readers import load
from traceview.viewer.app import create_app
from traceview.writer.lowoverhead.anr import ProcessText, anr_report
from traceview.writer.lowoverhead.art import ArtRun, Method

pytestmark = pytest.mark.browser
HZ = 24_576_000


def dump(name: str) -> bytes:
    loop, slow = Method(0x7000_0000, "android.os.Looper", "loop"), Method(0x7000_0010, "a.B", name)
    run, t = ArtRun(), 10**11
    run.start(7, "main", [loop], t)
    run.enter(7, slow, t)
    run.exit(7, t := t + 2 * HZ)
    run.enter(7, slow, t + 1)
    return run.dump(t + HZ, to="anr")


def test_anr_tab_and_process_picker(browser: Any, tmp_path: Path) -> None:
    path = tmp_path / "anr_2025-07-01"
    path.write_bytes(
        anr_report(
            [
                ProcessText(7, "com.first", dump("first")),
                ProcessText(8, "com.second", dump("second")),
            ]
        )
    )
    app = create_app(Session(load(path)), reopen=lambda i: Session(load(path, process=f"#{i}")))
    viewer = start_app(app)
    errors: list[str] = []
    try:
        page = open_page(browser, viewer.url, errors)
        page.click("#anr-tab")
        page.wait_for_selector("#tab-anr .anr-stack")
        text = page.inner_text("#tab-anr")
        assert "com.first (pid 7)" in text and "android.os.Looper.loop ()V" in text
        assert "a.B.first ()V" in text and "Calls of 341.3 ms or more: 1" in text
        shot(page, "viewer-anr")
        page.select_option("#tab-anr select.anr-process", "1")
        page.wait_for_selector("#tab-anr strong:has-text('com.second (pid 8)')")
        assert "a.B.second ()V" in page.inner_text("#tab-anr")
        page.close()
    finally:
        viewer.stop()
    assert not errors, errors
