"""The self-contained HTML report (`traceview report`) opened from file:// in Chromium: every
view works from the inlined answers, matches the engine, and requests that were not
precomputed show a short note instead of failing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from support.browserkit import (
    engine_ranking,
    settle,
    shot,
    table_names,
)
from support.report_data import make_report, report_answers
from traceview.readers import load

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    from traceview.synth import generate
    from traceview.writer import write

    # a small generated trace keeps the test quick (the demo's report takes ~10 s to build)
    folder = tmp_path_factory.mktemp("report")
    trace = folder / "small.trace"
    write(generate(records=20_000, threads=4, seed=5), trace)
    load(trace).validate()
    return trace, make_report(trace, folder / "demo.html")


@pytest.fixture
def page_url(report: tuple[Path, Path]) -> str:
    """The page the `page` fixture (tests/conftest.py) opens: the report, from file://."""
    return report[1].as_uri()


def inlined(page: Any, key: str) -> Any:
    html = Path(page.url.split("#")[0].removeprefix("file://")).read_text(encoding="utf-8")
    return report_answers(html)[key]


def test_report_views_work_offline(page: Any, report: tuple[Path, Path]) -> None:
    trace = load(report[0])
    info = inlined(page, "/api/trace")
    assert info["live"] is False
    assert page.locator("#open-btn").is_hidden()
    assert page.locator("#timeline .tl-label").count() == len(trace.threads)
    labels = inlined(page, "/api/methods")["label"]
    clock = info["default_clock"]
    shown = table_names(page)
    assert shown[:10] == [labels[m] for m, _ in engine_ranking(report[0], clock)[:10]]
    shot(page, "report-profile")
    page.click(".tabs button[data-tab=flame]")
    page.wait_for_function(
        "document.querySelector('#tab-flame .muted').textContent.includes('frames')"
    )
    shot(page, "report-flame")
    for tab, sel in (("topdown", ".ct-row"), ("bottomup", ".ct-row"), ("frames", ".fr-row.head")):
        page.click(f".tabs button[data-tab={tab}]")
        page.wait_for_selector(f"#tab-{tab} {sel}")
    page.click(".tabs button[data-tab=profile]")
    if len(info["clocks"]) > 1:
        other = "wall" if clock == "cpu" else "cpu"
        page.click(f'#clock button[data-clock="{other}"]')
        settle(page)
        assert table_names(page)[:10] == [
            labels[m] for m, _ in engine_ranking(report[0], other)[:10]
        ]


def test_report_shows_no_dead_controls(page: Any) -> None:
    """Every control a report shows works offline: the ones that need the engine (range,
    thread choice, my code, budget, another trace) are not shown, and a drag pans."""
    for sel in (
        "#mycode",
        "#tl-range",
        "#tl-main",
        "#open-btn",
        "#timeline .tl-label input",
        "#timeline .tl-only",
        "#tab-frames .budget",
        "#tab-flame .thread-pick",
    ):
        for i in range(page.locator(sel).count()):
            assert not page.locator(sel).nth(i).is_visible(), sel
    before = page.evaluate("traceview.views.timeline.view.slice()")
    canvas = page.locator("#timeline .tl-canvas").bounding_box()
    y = canvas["y"] + 10
    page.mouse.move(canvas["x"] + 300, y)
    page.mouse.down()
    page.mouse.move(canvas["x"] + 100, y, steps=4)
    page.mouse.up()
    page.keyboard.press("?")  # "?": the help overlay, listing the report's own keys
    assert page.locator("#help").is_visible()
    assert page.locator("#help .live-only").first.is_hidden()
    shot(page, "report-help")
    page.keyboard.press("Escape")
    after = page.evaluate("traceview.views.timeline.view.slice()")
    assert after[0] > before[0]  # dragged left: the view moved right, no range was made
    assert page.locator("#range").is_hidden()
    assert page.locator("#tab-profile .pt-banner").is_hidden()


def test_report_offers_relations_only_where_it_holds_them(
    page: Any, report: tuple[Path, Path]
) -> None:
    """A method's twisty opens its parents/children only when the report holds them; the
    others show a dot and do nothing."""
    html = report[1].read_text(encoding="utf-8")
    data = report_answers(html)
    clock = data["/api/trace"]["default_clock"]
    rows = page.locator("#tab-profile .pt-row.method")
    rows.first.locator(".twisty").click()
    page.wait_for_selector("#tab-profile .pt-row.g-parents")
    held = {int(k.split("/")[3].split("?")[0]) for k in data if k.startswith("/api/relations/")}
    order = data[f"/api/profile?clock={clock}"]["methods"]["method"]
    missing = [m for m in order if m not in held]
    if not missing:
        pytest.skip("this report holds every method's relations")
    page.evaluate("document.querySelector('#find').value = ''")
    m = missing[0]
    page.evaluate(f"traceview.select({m})")
    row = page.locator(f'#tab-profile .pt-row.method[data-method="{m}"]')
    row.wait_for()
    assert row.locator(".twisty").text_content() == "·"
    row.locator(".twisty").click()
    settle(page)
    assert "Not available" not in (page.locator("#tab-profile").text_content() or "")


def test_report_is_at_most_twice_the_trace(report: tuple[Path, Path]) -> None:
    """The payload is gzipped (DecompressionStream unpacks it): a generated 20k-record trace's
    report is at most 2x the trace plus the fixed UI (the JS and CSS, base64)."""
    from traceview.viewer.assets import shipped, static_dir

    static = static_dir()
    files = [p for p in static.rglob("*") if p.is_file()]
    files = [p for p in files if shipped(p.relative_to(static).as_posix())]
    ui = sum(p.stat().st_size for p in files) * 4 // 3
    assert report[1].stat().st_size <= 2 * report[0].stat().st_size + ui


def test_report_refuses_dropped_files(page: Any) -> None:
    page.evaluate(
        """() => {
            const dt = new DataTransfer();
            dt.items.add(new File([new Uint8Array([1, 2, 3])], 'x.trace'));
            document.dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true}));
        }"""
    )
    page.wait_for_selector("#error:not([hidden])")
    assert "static report" in (page.locator("#error").text_content() or "")
