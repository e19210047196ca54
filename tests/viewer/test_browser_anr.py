"""The viewer's ANR tab on an ANR report (headless Chromium): the stacks still running at the
dump, the slow calls, the process picker switching to another dump of the report, and the
times on CLOCK_MONOTONIC (ANR tab, timeline tooltip, range chip, header)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from support.browserkit import fetch_json, open_page, settle, shot, start_app
from traceview.analysis.session import Session
from traceview.analysis.timebase import monotonic_text
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


def test_anr_tab_and_timeline_on_clock_monotonic(browser: Any, tmp_path: Path) -> None:
    """A dump with its summary packet: the ANR tab says the open calls were still running
    (every time "≥") and shows where each began on CLOCK_MONOTONIC, the dump's moment too; the
    timeline's tooltip, the range chip and the header tab give CLOCK_MONOTONIC times."""
    path = tmp_path / "anr_2025-07-02"
    path.write_bytes(anr_report([ProcessText(7, "com.first", dump("first"))]))
    viewer = start_app(create_app(Session(load(path))))
    errors: list[str] = []
    try:
        anr = fetch_json(viewer, "/api/anr")
        zero = fetch_json(viewer, "/api/trace")["time"]["monotonic_ns"]
        assert isinstance(zero, int) and anr["dump_monotonic_ns"] is not None
        page = open_page(browser, viewer.url + "#range=1000000,2000000", errors)
        page.click("#anr-tab")
        page.wait_for_selector("#tab-anr .anr-stack")
        text = page.inner_text("#tab-anr")
        assert "Still running at the dump" in text and "from (CLOCK_MONOTONIC)" in text
        assert f"CLOCK_MONOTONIC {monotonic_text(anr['dump_monotonic_ns'])}" in text
        ran = page.locator("#tab-anr .anr-frames tbody td.num:first-child").all_text_contents()
        assert len(ran) == 2 and all(cell.startswith("≥ ") for cell in ran), ran
        since = page.locator("#tab-anr .anr-since").all_text_contents()
        frames = anr["open"][0]["frames"]
        assert since == [
            ("≤ " if f["before_tracing"] else "") + monotonic_text(f["start_monotonic_ns"])
            for f in frames
        ]
        shot(page, "viewer-anr-monotonic")
        chip = page.locator("#range").text_content() or ""
        assert f"CLOCK_MONOTONIC {zero + 10**9} – {zero + 2 * 10**9} ns" in chip
        whole, clear = (page.locator(s).bounding_box() for s in ("#range", "#range-clear"))
        assert clear["x"] + clear["width"] <= whole["x"] + whole["width"]  # not cut off
        box = page.locator("#timeline .tl-canvas").bounding_box()
        for frac in (0.3, 0.5, 0.7, 0.9):
            page.mouse.move(box["x"] + box["width"] * frac, box["y"] + 8)
            settle(page)
            if page.locator("#timeline .tooltip .tip-mono").is_visible():
                break
        page.wait_for_selector("#timeline .tip-grid span")  # the call's details arrived
        tip = page.locator("#timeline .tooltip .tip-mono").inner_text()
        start = int(tip.split()[1].replace(".", ""))
        assert tip.startswith("CLOCK_MONOTONIC ") and zero <= start <= anr["dump_monotonic_ns"]
        # the top row is Looper.loop, still running at the dump: its end and times are "≥"
        whole_tip = page.inner_text("#timeline .tooltip")
        assert "android.os.Looper.loop" in whole_tip and " → ≥ " in tip
        assert "duration ≥ 2.000 s (still running at the end)" in whole_tip
        assert "incl ≥ 2.000 s" in whole_tip
        shot(page, "viewer-tooltip-monotonic")
        page.click(".tabs button[data-tab=header]")
        assert f"{monotonic_text(zero)} ({zero} ns)" in page.inner_text("#tab-header")
        page.close()
    finally:
        viewer.stop()
    assert not errors, errors
