"""The live viewer in headless Chromium on the demo trace: thread rows and table rows against
the engine, selection, find, parents/children, range and thread re-aggregation, clock switch,
every tab, opening another trace (picker, drop, bad file), and the dark theme."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.browserkit import (
    Viewer,
    engine_ranking,
    fetch_json,
    open_page,
    serving,
    settle,
    shot,
    table_cells,
    table_names,
)
from traceview.readers import load

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled demo trace, or a generated stand-in while it is missing."""
    from traceview.synth import demo_path, generate
    from traceview.writer import write

    path = demo_path()
    if not path.is_file():
        path = tmp_path_factory.mktemp("demo") / "demo.trace"
        write(generate(records=40_000, threads=5, seed=3), path)
    load(path).validate()
    return path


@pytest.fixture(scope="module")
def viewer(demo: Path) -> Iterator[Viewer]:
    with serving(demo) as v:
        yield v


@pytest.fixture
def page_url(viewer: Viewer) -> str:
    """The page the `page` fixture (tests/conftest.py) opens: the live viewer."""
    return viewer.url


def test_threads_and_table_match_the_engine(page: Any, viewer: Viewer, demo: Path) -> None:
    trace = load(demo)
    trace.validate()
    labels = page.locator("#timeline .tl-label .tl-name").all_text_contents()
    info = fetch_json(viewer, "/api/trace")
    assert sorted(labels) == sorted(str(t["label"]) for t in info["threads"])
    assert len(labels) == len(trace.threads)
    clock = info["default_clock"]
    ranking = engine_ranking(demo, clock)
    methods = fetch_json(viewer, "/api/methods")
    shown = table_names(page)
    want = [methods["label"][m] for m, _ in ranking[: len(shown)]]
    assert shown[:10] == want[:10]
    col = 2 if clock == "cpu" else 6  # Incl CPU ms / Incl Real ms (both clocks shown)
    first = table_cells(page, 0)
    assert float(first[col]) == pytest.approx(ranking[0][1] / 1e6, abs=1e-3)
    # virtualised: only the rows in view (plus a margin) are in the DOM
    rendered = page.locator("#tab-profile .pt-row.method").count()
    assert rendered < min(len(ranking), 100) or len(ranking) < 60
    shot(page, "viewer-demo")


def test_select_method_highlights_everywhere(page: Any) -> None:
    with page.expect_request(re.compile(r"/api/highlight/\d+")) as req:
        page.locator("#tab-profile .pt-row.method").nth(2).click()
    found = re.search(r"/api/highlight/(\d+)", req.value.url)
    assert found is not None
    method = int(found.group(1))
    row = page.locator(f'#tab-profile .pt-row.method[data-method="{method}"]')
    assert "selected" in (row.get_attribute("class") or "")
    assert page.locator("#selection").text_content()
    settle(page)
    shot(page, "viewer-selected")


def test_find_filters_and_marks(page: Any, viewer: Viewer) -> None:
    methods = fetch_json(viewer, "/api/methods")
    first = table_names(page)[0]
    needle = first.split(".")[-1].split(" ")[0][:5].upper()
    page.fill("#find", needle)
    settle(page)
    names = table_names(page)
    assert names and all(needle.lower() in n.lower() for n in names)
    assert page.locator("#tab-profile mark").count() > 0
    # the count is of the table's rows (methods with time), not of every method in the key
    info = fetch_json(viewer, "/api/trace")
    rows = fetch_json(viewer, f"/api/profile?clock={info['default_clock']}")["methods"]["method"]
    n_match = sum(needle.lower() in str(methods["label"][m]).lower() for m in rows)
    assert (page.locator("#find-count").text_content() or "").startswith(f"{n_match} method")
    page.press("#find", "Enter")
    assert page.locator("#tab-profile .pt-row.method.selected").count() == 1
    shot(page, "viewer-find")
    page.press("#find", "Escape")
    settle(page)
    assert len(table_names(page)) >= len(names)


def test_parents_children_and_jump(page: Any) -> None:
    rows = page.locator("#tab-profile .pt-row.method")
    # the top method of a thread has children; expand the first row with any
    for k in range(5):
        rows.nth(k).locator(".twisty").click()
        page.wait_for_selector("#tab-profile .pt-row.group")
        if page.locator("#tab-profile .pt-row.rel.g-children").count() > 1:
            break
        rows.nth(k).locator(".twisty").click()
    groups = page.locator("#tab-profile .pt-row.group").all_text_contents()
    assert "Parents" in groups and "Children" in groups
    child = page.locator("#tab-profile .pt-row.rel.g-children").nth(1)
    calls = child.locator(".num").nth(10).text_content() or ""  # after both off-CPU columns
    assert re.fullmatch(r"\d+/\d+", calls), calls
    shot(page, "viewer-relations")
    name = child.locator(".pt-name").text_content() or ""
    child.click()
    selected = page.locator("#tab-profile .pt-row.method.selected .pt-name")
    assert selected.count() == 1
    assert (selected.text_content() or "").endswith(name[-20:])


def test_range_and_threads_reaggregate(page: Any) -> None:
    before = table_cells(page, 0)
    canvas = page.locator("#timeline .tl-canvas").bounding_box()
    y = canvas["y"] + 10
    with page.expect_response(re.compile(r"/api/profile\?.*t0=.*t1=")):
        page.mouse.move(canvas["x"] + canvas["width"] * 0.2, y)  # a drag selects (as in Perfetto)
        page.mouse.down()
        page.mouse.move(canvas["x"] + canvas["width"] * 0.4, y, steps=4)
        page.mouse.up()
    assert page.locator("#range").is_visible()
    settle(page)
    assert table_cells(page, 0) != before
    shot(page, "viewer-range")
    page.click("#range-clear")  # the whole-trace answer is cached: no new request
    settle(page)
    assert table_cells(page, 0) == before
    assert page.locator("#range").is_hidden()
    with page.expect_request(re.compile(r"/api/profile\?.*threads=")):
        page.locator("#timeline .tl-label input").first.uncheck()
    assert page.locator("#threads-chip").is_visible()
    page.click("#threads-chip .chip-btn")  # back to every thread
    settle(page)
    assert page.locator("#threads-chip").is_hidden()
    assert table_cells(page, 0) == before


def test_clock_switch(page: Any, viewer: Viewer, demo: Path) -> None:
    info = fetch_json(viewer, "/api/trace")
    if len(info["clocks"]) < 2:
        pytest.skip("single-clock trace")
    other = "wall" if info["default_clock"] == "cpu" else "cpu"
    with page.expect_response(re.compile(rf"/api/profile\?clock={other}")):
        page.click(f'#clock button[data-clock="{other}"]')
    settle(page)
    methods = fetch_json(viewer, "/api/methods")
    want = [methods["label"][m] for m, _ in engine_ranking(demo, other)[:10]]
    assert table_names(page)[:10] == want


def test_every_tab_renders(page: Any, viewer: Viewer) -> None:
    info = fetch_json(viewer, "/api/trace")
    page.click(".tabs button[data-tab=flame]")
    page.wait_for_function(
        "document.querySelector('#tab-flame .muted').textContent.includes('frames')"
    )
    shot(page, "viewer-flame")
    box = page.locator("#tab-flame canvas").bounding_box()
    page.mouse.click(box["x"] + 20, box["y"] + 8)
    assert page.locator("#selection").text_content()
    page.click(".tabs button[data-tab=topdown]")
    page.wait_for_selector("#tab-topdown .ct-row")
    shot(page, "viewer-topdown")
    page.click(".tabs button[data-tab=bottomup]")
    page.wait_for_selector("#tab-bottomup .ct-row")
    page.click(".tabs button[data-tab=chart]")
    settle(page)
    shot(page, "viewer-chart")
    page.click(".tabs button[data-tab=frames]")
    page.wait_for_selector("#tab-frames .fr-row.head")
    shot(page, "viewer-frames")
    page.click(".tabs button[data-tab=header]")
    text = page.locator("#tab-header").text_content() or ""
    for key in info["header"]["options"]:
        assert key in text
    shot(page, "viewer-header")
    page.click("#theme")
    page.click(".tabs button[data-tab=profile]")
    settle(page)
    shot(page, "viewer-dark")
    page.click("#theme")


def test_timeline_zoom_pan_and_tooltip(page: Any) -> None:
    canvas = page.locator("#timeline .tl-canvas")
    box = canvas.bounding_box()
    before = page.evaluate("window.traceview.views.timeline.view.slice()")
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 8)
    page.keyboard.down("Control")  # Ctrl+wheel zooms; the wheel alone scrolls the rows
    page.mouse.wheel(0, -600)
    page.keyboard.up("Control")
    settle(page)
    after = page.evaluate("window.traceview.views.timeline.view.slice()")
    assert after[1] - after[0] < before[1] - before[0]
    page.keyboard.press("d")
    panned = page.evaluate("window.traceview.views.timeline.view.slice()")
    assert panned[0] > after[0]
    page.dblclick("#timeline .tl-axis")
    settle(page)
    assert page.evaluate("window.traceview.views.timeline.view.slice()") == before
    for frac in (0.1, 0.3, 0.5, 0.7):
        page.mouse.move(box["x"] + box["width"] * frac, box["y"] + 8)
        settle(page)
        if page.locator("#timeline .tooltip").is_visible():
            break
    assert page.locator("#timeline .tooltip").is_visible()
    page.wait_for_function(
        "document.querySelector('#timeline .tip-grid').textContent.includes('incl')"
    )
    shot(page, "viewer-tooltip")
    # a deep thread row folds to its outer levels and back
    heights = """() => Array.from(document.querySelectorAll('#timeline .tl-label'))
        .map(l => l.getBoundingClientRect().height)"""
    twisty = page.locator("#timeline .tl-label .tl-twisty:not(:empty)")
    if twisty.count():
        h0 = page.evaluate(heights)
        twisty.first.click()
        assert page.evaluate(heights) != h0


def test_open_another_trace(browser: Any, demo: Path, tmp_path: Path) -> None:
    from support.tracebuild import make_trace
    from traceview.writer import write

    other = make_trace(
        [
            (7, "enter", "com.other.App.start", 0, 0),
            (7, "enter", "com.other.App.work", 1, 2),
            (7, "exit", "com.other.App.work", 5, 9),
            (7, "exit", "com.other.App.start", 6, 11),
        ],
        names={7: "other-main"},
    )
    path = tmp_path / "other.trace"
    write(other, path)
    bad = tmp_path / "bad.trace"
    bad.write_bytes(b"this is not a method trace at all\n")
    errors: list[str] = []
    with serving(demo) as v:
        pg = open_page(browser, v.url, errors)
        pg.set_input_files("#open-file", str(bad))
        pg.wait_for_selector("#error:not([hidden])")
        message = pg.locator("#error").text_content() or ""
        assert "bad.trace" in message and "\n" not in message
        shot(pg, "viewer-open-error")
        pg.set_input_files("#open-file", str(path))
        pg.wait_for_function("document.querySelectorAll('#timeline .tl-label').length === 1")
        assert pg.locator("#timeline .tl-label .tl-name").text_content() == "other-main"
        assert pg.locator("#error").is_hidden()
        pg.wait_for_selector("#tab-profile .pt-row.method")
        assert any("com.other.App.work" in n for n in table_names(pg))
        # drag and drop the demo back onto the page
        pg.evaluate(
            """([b64, name]) => {
                const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
                const dt = new DataTransfer();
                dt.items.add(new File([bytes], name));
                document.dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true}));
            }""",
            [base64.b64encode(demo.read_bytes()).decode(), demo.name],
        )
        pg.wait_for_function("document.querySelectorAll('#timeline .tl-label').length > 1")
        pg.close()
    # the failed open answers 400, which Chromium logs as a console error: expected here
    assert all("400" in e for e in errors), errors


def test_mycode_sort_frames_and_axis_zoom(page: Any, viewer: Viewer) -> None:
    info = fetch_json(viewer, "/api/trace")
    # my-code prefixes go to the server (and are remembered)
    with page.expect_response(re.compile(r"/api/profile\?.*mycode=com\.android")):
        page.fill("#mycode", "com.android, java.lang")
        page.press("#mycode", "Enter")
        page.locator("#find").focus()
    assert page.evaluate("localStorage.getItem('traceview.mycode')") == "com.android, java.lang"
    page.fill("#mycode", "")
    page.press("#mycode", "Enter")
    page.locator("#find").focus()
    # thread rows sorted by name
    page.select_option("#tl-sort", "name")
    names = page.locator("#timeline .tl-label .tl-name").all_text_contents()
    assert [n.casefold() for n in names] == sorted(n.casefold() for n in names)
    assert len(names) == len(info["threads"])
    # drag on the axis zooms to the dragged range
    axis = page.locator("#timeline .tl-axis").bounding_box()
    whole = page.evaluate("window.traceview.views.timeline.view.slice()")
    page.mouse.move(axis["x"] + 100, axis["y"] + 10)
    page.mouse.down()
    page.mouse.move(axis["x"] + 300, axis["y"] + 10, steps=4)
    page.mouse.up()
    zoomed = page.evaluate("window.traceview.views.timeline.view.slice()")
    assert zoomed[1] - zoomed[0] < (whole[1] - whole[0]) / 2
    # a frame-budget row zooms the timeline to that call and selects its method
    page.click(".tabs button[data-tab=frames]")
    page.wait_for_selector("#tab-frames .fr-row.head")
    rows = page.locator("#tab-frames .fr-row:not(.head)")
    if rows.count():
        rows.first.click()
        view = page.evaluate("window.traceview.views.timeline.view.slice()")
        first = fetch_json(viewer, "/api/frames?budget_ms=16")["calls"]
        assert view[0] <= first["start_us"][0] and first["end_us"][0] <= view[1]
        assert page.locator("#selection").text_content()
    # the flame graph of one thread asks for that thread only
    page.click(".tabs button[data-tab=flame]")
    main = next(t for t in info["threads"] if t["main"]) if info["threads"] else None
    if main is not None:
        with page.expect_request(re.compile(rf"/api/flame\?.*threads={main['row']}(&|$)")):
            page.select_option("#tab-flame .thread-pick", str(main["row"]))
    shot(page, "viewer-flame-thread")


def test_sort_by_any_column(page: Any, viewer: Viewer) -> None:
    prof = fetch_json(
        viewer, "/api/profile?clock=" + fetch_json(viewer, "/api/trace")["default_clock"]
    )
    cols = prof["methods"]
    key = "excl_wall_us" if cols["excl_wall_us"] is not None else "excl_cpu_us"
    header = "excl_wall" if key == "excl_wall_us" else "excl_cpu"
    page.click(f'#tab-profile .pt-hcell[data-col="{header}"]')
    settle(page)
    top = max(cols[key])
    col = page.locator("#tab-profile .pt-hcell").all_text_contents()
    at = next(
        i
        for i, t in enumerate(col)
        if t.startswith(("Excl Real ms", "Excl CPU ms")[key == "excl_cpu_us"])
    )
    assert float(table_cells(page, 0)[at]) == pytest.approx(top / 1000, abs=1e-3)
    page.click(f'#tab-profile .pt-hcell[data-col="{header}"]')  # again: reversed
    settle(page)
    assert float(table_cells(page, 0)[at]) == pytest.approx(min(cols[key]) / 1000, abs=1e-3)
    page.click('#tab-profile .pt-hcell[data-col="name"]')
    names = table_names(page)
    assert names == sorted(names, key=str.lower)
