"""The viewer behaves like the tools Android engineers use (issue 9): open main thread and
compact other rows, "only this thread", Perfetto/Android Studio input, nothing stale, find
counts the table, frame culprits, CPU-only axis, Android Studio's names, traceview's colours,
and the page under its real CSP."""

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
)
from support.corpus import corpus_path
from traceview.readers import load

pytestmark = pytest.mark.browser

MANY = "lilong9898-androidtracedataanalyzer/example_dmtrace.trace"  # 53 threads, deep main
VIEW = "window.traceview.views.timeline.view.slice()"
LABELS = """() => Array.from(document.querySelectorAll('#timeline .tl-label')).map(l => {
    const r = l.getBoundingClientRect();
    return {h: r.height, title: l.title, main: l.classList.contains('main'),
            open: l.querySelector('.tl-twisty').textContent}; })"""


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated trace of 24 threads (deep rows everywhere)."""
    from traceview.synth import generate
    from traceview.writer import write

    path = tmp_path_factory.mktemp("habits") / "many.trace"
    write(generate(records=30_000, threads=24, seed=9), path)
    load(path).validate()
    return path


@pytest.fixture(scope="module")
def viewer(many: Path) -> Iterator[Viewer]:
    with serving(many) as v:
        yield v


@pytest.fixture
def page_url(viewer: Viewer) -> str:
    """The page the `page` fixture (tests/conftest.py) opens: the live viewer."""
    return viewer.url


def test_ready_under_the_real_csp(browser: Any, viewer: Viewer) -> None:
    errors: list[str] = []
    pg = open_page(browser, viewer.url, errors, bypass_csp=False)
    pg.wait_for_selector("body[data-ready='1']", state="attached")
    pg.wait_for_selector("#tab-profile .pt-row.method")
    pg.keyboard.press("?")
    assert pg.locator("#help").is_visible()
    pg.close()
    assert not errors, errors


def _rows_fit(page: Any, main_open: bool) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = page.evaluate(LABELS)
    others = [r for r in rows if not r["main"]]
    assert others and all(r["h"] <= 50 for r in others)  # 20+ compact rows fit on 1000 px
    for r in rows:
        assert "(tid " in r["title"]
        if r["main"] and main_open:
            assert r["h"] > 3 + 2 * 15 + 7  # the main thread shows more than a compact row
    return rows


def test_main_thread_open_other_rows_compact(page: Any, viewer: Viewer) -> None:
    rows = _rows_fit(page, main_open=True)
    info = fetch_json(viewer, "/api/trace")
    assert len(rows) == len(info["threads"]) == 24
    shot(page, "habits-rows")
    # a compact row opens on its twisty and folds back
    twisty = page.locator("#timeline .tl-label:not(.main) .tl-twisty:not(:empty)").first
    h0 = page.evaluate(LABELS)
    twisty.click()
    settle(page)
    assert page.evaluate(LABELS) != h0


def test_corpus_threads_fit_and_name_themselves(browser: Any) -> None:
    path = corpus_path(MANY)
    errors: list[str] = []
    with serving(path) as v:
        pg = open_page(browser, v.url, errors)
        pg.wait_for_selector("#tab-profile .pt-row.method")
        settle(pg)
        rows = _rows_fit(pg, main_open=True)
        assert len(rows) == 53
        main = next(r for r in rows if r["main"])
        assert main["h"] > 4 * 15 + 10  # more than the 4 outermost frames
        # find: hits below a compact row's last level still show (marks in the found colour)
        hidden = pg.evaluate(
            """() => { const tl = traceview.views.timeline;
                for (const row of tl.rows) {
                    if (!row.compact) continue;
                    const tile = tl.tiles.tile(row.thread, 0, 0);
                    const r = tile && tile.rects;
                    for (let i = 0; r && i < r.depth.length; i++)
                        if (r.depth[i] - row.skip >= row.depth && r.end[i] - r.start[i] > 2000)
                        {
                            tl.scroll.scrollTop = row.y;
                            return traceview.state.methods.label[r.method[i]];
                        }
                }
                return null; }"""
        )
        assert hidden, "no call below a compact row's last level"
        pg.fill("#find", hidden)
        settle(pg)
        found = pg.evaluate(
            """() => { const c = document.querySelector('#timeline .tl-canvas');
                const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                let n = 0;
                for (let i = 0; i < d.length; i += 4)
                    if (d[i] === 0xe8 && d[i + 1] === 0xa4 && d[i + 2] === 0x00) n++;
                return n; }"""
        )
        assert found > 0
        shot(pg, "habits-corpus-find")
        pg.close()
    assert not errors, errors


def test_only_this_thread_and_all_again(page: Any, viewer: Viewer) -> None:
    label = page.locator("#timeline .tl-label").nth(1)
    row = int(label.locator(".tl-only").get_attribute("data-thread") or "-1")
    label.hover()
    with page.expect_response(
        lambda r: f"threads={row}&" in r.url or r.url.endswith(f"threads={row}")
    ):
        label.locator(".tl-only").click()
    chip = page.locator("#threads-chip").text_content() or ""
    assert chip.startswith("Only ") and "this thread" in chip
    want = fetch_json(
        viewer, f"/api/profile?clock={page.evaluate('traceview.state.clock')}&threads={row}"
    )
    settle(page)
    pct = page.locator("#tab-profile .pt-row.method").first.locator(".num").first.text_content()
    top = want["methods"]["incl_cpu_us"][0] if want["methods"]["incl_cpu_us"] else None
    if top is not None and want["total"]["cpu_us"]:
        assert pct == f"{100 * top / want['total']['cpu_us']:.1f}%"  # % of that thread
    page.click("#threads-all")
    settle(page)
    assert page.locator("#threads-chip").is_hidden()
    with page.expect_request(lambda r: "threads=" in r.url and "/api/profile" in r.url):
        page.click("#tl-main")
    assert (page.locator("#threads-chip").text_content() or "").startswith("Only ")


def test_wheel_scrolls_ctrl_wheel_zooms_drag_selects(page: Any) -> None:
    canvas = page.locator("#timeline .tl-canvas")
    box = canvas.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 30)
    before = page.evaluate(VIEW)
    page.mouse.wheel(0, 300)
    settle(page)
    assert page.evaluate("document.querySelector('#timeline .tl-scroll').scrollTop") > 0
    assert page.evaluate(VIEW) == before  # the wheel scrolls rows, it does not zoom
    page.keyboard.down("Control")
    page.mouse.wheel(0, -400)
    page.keyboard.up("Control")
    settle(page)
    zoomed = page.evaluate(VIEW)
    assert zoomed[1] - zoomed[0] < before[1] - before[0]
    page.keyboard.press("w")
    assert page.evaluate(VIEW)[1] - page.evaluate(VIEW)[0] < zoomed[1] - zoomed[0]
    # Shift+drag pans, a plain drag selects a range
    y = box["y"] + 20
    at = page.evaluate(VIEW)
    page.keyboard.down("Shift")
    page.mouse.move(box["x"] + 400, y)
    page.mouse.down()
    page.mouse.move(box["x"] + 200, y, steps=4)
    page.mouse.up()
    page.keyboard.up("Shift")
    assert page.evaluate(VIEW)[0] > at[0]
    assert page.locator("#range").is_hidden()
    page.mouse.move(box["x"] + 200, y)
    page.mouse.down()
    page.mouse.move(box["x"] + 500, y, steps=4)
    page.mouse.up()
    assert page.locator("#range").is_visible()
    page.keyboard.press("?")
    assert page.locator("#help").is_visible()
    shot(page, "habits-help")
    page.keyboard.press("Escape")
    assert page.locator("#help").is_hidden()


def test_nothing_stale(page: Any, viewer: Viewer) -> None:
    page.locator("#tab-profile .pt-row.method").nth(3).click()
    stats0 = page.locator("#selection .sel-stats").text_content()
    assert stats0
    box = page.locator("#timeline .tl-canvas").bounding_box()
    y = box["y"] + 10
    with page.expect_response(lambda r: "/api/profile" in r.url and "t0=" in r.url):
        page.mouse.move(box["x"] + box["width"] * 0.1, y)
        page.mouse.down()
        page.mouse.move(box["x"] + box["width"] * 0.2, y, steps=4)
        page.mouse.up()
    settle(page)
    stats1 = page.locator("#selection .sel-stats").text_content()
    assert stats1 != stats0  # the bar follows the range
    page.keyboard.press("Escape")  # clears the selection first
    # the tooltip goes when the view changes under it
    for frac in (0.1, 0.3, 0.5, 0.7):
        page.mouse.move(box["x"] + box["width"] * frac, box["y"] + 8)
        settle(page)
        if page.locator("#timeline .tooltip").is_visible():
            break
    assert page.locator("#timeline .tooltip").is_visible()
    page.keyboard.press("w")
    assert page.locator("#timeline .tooltip").is_hidden()


def test_frame_budget_names_the_culprit(browser: Any, tmp_path: Path) -> None:
    from support.tracebuild import make_trace
    from traceview.writer import write

    ms = 1000
    trace = make_trace(
        [
            (1, "enter", "android.view.Choreographer.doFrame", 0, 0),
            (1, "enter", "com.app.Feed.bind", 1, 1),
            (1, "enter", "com.app.Images.decode", 2, 2),
            (1, "exit", "com.app.Images.decode", 20 * ms, 20 * ms),
            (1, "exit", "com.app.Feed.bind", 20 * ms + 5, 20 * ms + 5),
            (1, "enter", "com.app.Feed.layout", 20 * ms + 6, 20 * ms + 6),
            (1, "exit", "com.app.Feed.layout", 24 * ms, 24 * ms),
            (1, "exit", "android.view.Choreographer.doFrame", 25 * ms, 25 * ms),
        ],
        names={1: "main"},
    )
    path = tmp_path / "frame.trace"
    write(trace, path)
    errors: list[str] = []
    with serving(path) as v:
        pg = open_page(browser, v.url, errors)
        pg.click(".tabs button[data-tab=frames]")
        pg.wait_for_selector("#tab-frames .fr-row:not(.head)")
        why = pg.locator("#tab-frames .fr-row:not(.head) > div").last.text_content() or ""
        assert "Feed.bind › Images.decode" in why and "20.0 ms self" in why
        assert "(wall)" in (pg.locator("#tab-frames .fr-row.head").text_content() or "")
        shot(pg, "habits-frames")
        pg.close()
    assert not errors, errors


def test_cpu_only_axis_says_so(browser: Any, tmp_path: Path) -> None:
    from traceview.synth import generate
    from traceview.writer import write

    path = tmp_path / "cpu.trace"
    write(generate(records=5_000, threads=3, seed=2, clock="thread-cpu"), path)
    errors: list[str] = []
    with serving(path) as v:
        pg = open_page(browser, v.url, errors)
        pg.wait_for_selector("#tab-profile .pt-row.method")
        corner = pg.locator("#timeline .tl-corner")
        assert "reconstructed" in (corner.text_content() or "")
        assert "order of records" in (corner.get_attribute("title") or "")
        label = pg.locator("#timeline .tl-axislabel")
        label.wait_for(state="visible")
        assert "reconstructed from record order" in (label.text_content() or "")
        # the axis is labelled where it is drawn, so no page-wide banner repeats it
        assert "CPU clock" not in (pg.locator("#banners").text_content() or "")
        shot(pg, "habits-cpu-only")
        pg.close()
    assert not errors, errors


def test_names_and_colours(page: Any) -> None:
    tabs = page.locator(".tabs button").all_text_contents()
    for name in ("Profile", "Flame Chart", "Call Chart", "Top Down", "Bottom Up"):
        assert name in tabs
    page.locator("#tab-profile .pt-row.method").first.locator(".twisty").click()
    page.wait_for_selector("#tab-profile .pt-row.g-parents")
    bg = page.evaluate(
        """() => [getComputedStyle(document.querySelector('.pt-row.g-parents')).backgroundColor,
                  getComputedStyle(document.querySelector('.pt-row.g-children')).backgroundColor]"""
    )
    assert bg == ["rgb(228, 212, 247)", "rgb(255, 242, 179)"]  # purple parents, yellow children
    # off-CPU is never negative in the table
    off = page.locator("#tab-profile .pt-row.method .num").all_text_contents()
    assert not [t for t in off if t.startswith("-")]
    # a name with a find hit stays one piece with its ellipsis
    page.fill("#find", "a")
    settle(page)
    lbl = page.locator("#tab-profile .pt-row.method .lbl").first
    assert lbl.evaluate("e => getComputedStyle(e).textOverflow") == "ellipsis"
    assert lbl.locator("mark").count() > 0


def test_another_trace_starts_fresh(browser: Any, many: Path, tmp_path: Path) -> None:
    """Opening another trace leaves nothing of the old one: table scroll, selection bar."""
    from support.tracebuild import make_trace
    from traceview.writer import write

    other = tmp_path / "other.trace"
    write(
        make_trace(
            [
                (7, "enter", "com.other.App.start", 0, 0),
                (7, "exit", "com.other.App.start", 6, 11),
            ],
            names={7: "other-main"},
        ),
        other,
    )
    errors: list[str] = []
    with serving(many) as v:
        pg = open_page(browser, v.url, errors)
        pg.wait_for_selector("#tab-profile .pt-row.method")
        pg.locator("#tab-profile .pt-row.method").nth(2).click()
        pg.evaluate("document.querySelector('#tab-profile .pt-scroll').scrollTop = 400")
        pg.set_input_files("#open-file", str(other))
        pg.wait_for_function("traceview.state.trace.threads.length === 1")
        pg.wait_for_selector("#tab-profile .pt-row.method")
        assert pg.evaluate("document.querySelector('#tab-profile .pt-scroll').scrollTop") == 0
        assert (pg.locator("#selection").text_content() or "") == ""
        assert (pg.locator("#tab-profile .pt-row.method").count()) == 1
        pg.close()
    assert not errors, errors
