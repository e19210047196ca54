"""Compare mode in headless Chromium: "Compare with…" on a single-trace viewer (a file picked,
a file dropped), the Diff tab (sort by Δ, Δ %, significance; filters), the differential flame
graph (hover: both sides, Δ, Δ %, significance; the widths switch), both timelines one above
the other (linked, aligned at a method's first call), a selection shown on both sides; and
`traceview compare`'s app with several runs per side. Screenshots in artifacts/screenshots."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.browserkit import (
    Viewer,
    open_page,
    serving,
    shot,
    start_app,
)
from support.plant import ALWAYS, planted_runs

pytestmark = pytest.mark.browser


Runs = tuple[list[Path], list[Path]]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    """Two runs per side of the planted scenario (ALWAYS 2x slower in the candidate), and
    a moved call: paths that are new and gone."""
    from traceview.writer import write

    folder = tmp_path_factory.mktemp("compare")
    base, cand = planted_runs(runs=2, moved=True)
    paths: tuple[list[Path], list[Path]] = ([], [])
    for side, traces, name in ((0, base, "base"), (1, cand, "cand")):
        for i, t in enumerate(traces):
            p = folder / f"{name}{i}.trace"
            write(t, p)
            paths[side].append(p)
    return paths


@pytest.fixture(scope="module")
def single(runs: Runs) -> Iterator[Viewer]:
    with serving(runs[0][0]) as v:
        yield v


def rows(page: Any) -> list[dict[str, str]]:
    """The Diff table's rendered rows as {state, name, delta, rel, t}."""
    out: list[dict[str, str]] = page.eval_on_selector_all(
        "#tab-diff .diff-table tbody tr",
        """trs => trs.map(tr => {
            const c = [...tr.children].map(td => td.textContent);
            return {state: c[0], name: c[1], delta: c[4], rel: c[5], t: c[6]};
        })""",
    )
    return out


def number(text: str) -> float:
    """`+1.234 ms`, `−12.3 %`, `4.5` -> float; `new`/`gone`/`–` -> nan."""
    t = text.replace("−", "-").replace("ms", "").replace("%", "").strip()
    try:
        return float(t)
    except ValueError:
        return float("nan")


def test_compare_with_a_picked_file(browser: Any, single: Viewer, runs: Runs) -> None:
    errors: list[str] = []
    pg = open_page(browser, single.url, errors)
    assert pg.locator("#cand-pane").is_hidden() and pg.locator("[data-tab=diff]").is_hidden()
    pg.set_input_files("#compare-file", str(runs[1][0]))
    pg.wait_for_selector("#tab-diff .diff-table tbody tr")
    assert pg.locator("#cand-pane").is_visible()
    assert "cand0.trace" in (pg.locator("#cand-name").text_content() or "")
    assert "base0.trace" in (pg.locator("#base-name").text_content() or "")
    # the planted slow-down leads the table (sorted by Δ, largest first)
    first = rows(pg)[0]
    assert first["name"].startswith(ALWAYS) and first["state"] == "slower"
    shot(pg, "compare-diff-tab")
    # sort by Δ %, then by significance, then ascending Δ
    pg.click("#tab-diff th[data-sort=rel]")
    rel = [number(r["rel"]) for r in rows(pg)]
    finite = [x for x in rel if x == x]
    assert finite == sorted(finite, reverse=True)
    pg.click("#tab-diff th[data-sort=sig]")
    assert "▼" in (pg.locator("#tab-diff th[data-sort=sig]").text_content() or "")
    pg.click("#tab-diff th[data-sort=delta]")
    pg.click("#tab-diff th[data-sort=delta]")  # again: ascending
    delta = [number(r["delta"]) for r in rows(pg)]
    assert delta == sorted(delta)
    # filters
    pg.click("#tab-diff button[data-filter=slower]")
    slower = rows(pg)
    assert slower and all(r["state"] == "slower" for r in slower)
    assert any(r["name"].startswith(ALWAYS) for r in slower)
    pg.click("#tab-diff button[data-filter=faster]")
    assert all(r["state"] == "faster" for r in rows(pg))
    pg.click("#tab-diff button[data-filter=all]")
    # a row click selects the method on both sides: both timelines highlight it
    pg.click("#tab-diff th[data-sort=delta]")
    pg.locator("#tab-diff .diff-table tbody tr").first.click()
    pg.wait_for_function("window.traceview.state.selected >= 0")
    picked = pg.evaluate(
        """() => {
            const s = window.traceview.state;
            return [s.methods.label[s.selected], window.traceview.cmp.selected()];
        }"""
    )
    assert picked[0].startswith(ALWAYS) and picked[1] >= 0
    assert pg.locator("#tab-diff tr.on").count() == 1
    # each timeline asked its own trace where that method runs, and drew the extents
    for view, side in (("timeline", ""), ("cand", "cand")):
        pg.wait_for_function(
            """([view, m]) => [...window.traceview.views[view].tiles.data.entries()].some(
                ([k, a]) => k.startsWith('/api/highlight/' + m + '?') && a.start.length > 0)""",
            arg=[view, picked[1] if side else pg.evaluate("window.traceview.state.selected")],
        )
    shot(pg, "compare-selected")
    pg.close()
    assert not errors, errors


def test_diff_flame_and_timelines(browser: Any, runs: Runs) -> None:
    from traceview.analysis.session import Session
    from traceview.readers import load
    from traceview.viewer.app import create_app
    from traceview.viewer.comparing import Sides

    base = tuple(Session(load(p)) for p in runs[0])
    cand = tuple(Session(load(p)) for p in runs[1])
    viewer = start_app(create_app(base[0], sides=Sides(base, cand)))
    errors: list[str] = []
    try:
        pg = open_page(browser, viewer.url, errors)
        assert pg.locator("#cand-pane").is_visible()
        assert "(+1 runs)" in (pg.locator("#cand-name").text_content() or "")
        # both timelines drew their threads
        pg.wait_for_function("document.querySelectorAll('#timeline .tl-label').length === 3")
        pg.wait_for_function("document.querySelectorAll('#timeline-cand .tl-label').length === 3")
        pg.click("[data-tab=diffflame]")
        pg.wait_for_function("window.traceview.views.diffflame.data !== null")
        flame = pg.evaluate(
            """() => { const d = window.traceview.views.diffflame.data;
                return {n: d.nodes.x.length, side: d.side, total: d.total,
                        states: [...new Set(d.nodes.state)]}; }"""
        )
        assert flame["n"] > 10 and flame["side"] == "candidate"
        assert {"slower", "new"} <= set(flame["states"])  # gone paths: no candidate width
        # hover the slowest frame: both sides, Δ, Δ % and the significance
        box = pg.evaluate(
            """() => { const v = window.traceview.views.diffflame, N = v.data.nodes;
                let best = -1;
                for (let i = 0; i < N.x.length; i++)
                  if (N.state[i] === 'slower' && (best < 0 || N.width[i] > N.width[best])) best = i;
                v.area.scrollTop = Math.max(0, N.depth[best] * 17 - 60);  // into view
                const r = v.canvas.getBoundingClientRect();
                const W = r.width / v.data.total;
                return {x: r.left + (N.x[best] + N.width[best] / 2) * W,
                        y: r.top + N.depth[best] * 17 + 10}; }"""
        )
        pg.mouse.move(box["x"], box["y"])
        pg.wait_for_selector("#tab-diffflame .tooltip:not([hidden])")
        tip = pg.locator("#tab-diffflame .tooltip").text_content() or ""
        assert "slower" in tip and "→" in tip and "Δ" in tip and "%" in tip
        assert "run-to-run spread" in tip
        shot(pg, "compare-diff-flame-hover")
        pg.click("#tab-diffflame button[data-width=baseline]")
        pg.wait_for_function("window.traceview.views.diffflame.data.side === 'baseline'")
        assert pg.evaluate("window.traceview.views.diffflame.data.total") < flame["total"]
        assert pg.evaluate("window.traceview.views.diffflame.data.nodes.state.includes('gone')")
        # select the slow method in the flame graph; align the timelines at its first call
        pg.mouse.click(box["x"], box["y"])
        pg.wait_for_function("window.traceview.cmp.selected() >= 0")
        pg.select_option("#align", "method")
        pg.wait_for_function(
            "document.getElementById('align-note').textContent.includes('shifted')"
        )
        views = pg.evaluate(
            """() => { const v = window.traceview.views;
                return {base: v.timeline.view, cand: v.cand.view,
                        shift: window.traceview.cmp.shift}; }"""
        )
        assert views["cand"][0] - views["base"][0] == pytest.approx(views["shift"], abs=1e-6)
        # zooming one timeline moves the other
        pg.evaluate("window.traceview.views.timeline.setView(1000, 5000)")
        cand_view = pg.evaluate("window.traceview.views.cand.view")
        assert cand_view[0] == pytest.approx(1000 + views["shift"], abs=1e-3)
        pg.evaluate("window.traceview.views.timeline.resetView()")
        shot(pg, "compare-timelines")
        pg.close()
    finally:
        viewer.stop()
    assert not errors, errors


def test_compare_by_drop(browser: Any, single: Viewer, runs: Runs) -> None:
    errors: list[str] = []
    pg = open_page(browser, single.url, errors)
    data = base64.b64encode(runs[1][1].read_bytes()).decode()
    pg.evaluate(
        """([b64, name]) => {
            const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
            const dt = new DataTransfer();
            dt.items.add(new File([bytes], name));
            const zone = document.getElementById('drop-compare');
            zone.dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true}));
        }""",
        [data, "dropped<b>.trace"],
    )
    pg.wait_for_selector("#tab-diff .diff-table tbody tr")
    assert (pg.locator("#cand-name").text_content() or "") == "dropped<b>.trace"
    assert pg.locator("#cand-name b").count() == 0
    pg.close()
    assert not errors, errors


def test_compare_report_offline(browser: Any, runs: Runs, tmp_path: Path) -> None:
    """`traceview report BASE --vs NEW -o compare.html` from file://: the Diff tab, both
    metrics, the differential flame graph with both widths, and the candidate's timeline,
    every answer from the page (no server), none missing."""
    from traceview.cli import main

    out = tmp_path / "compare.html"
    assert main(["report", str(runs[0][0]), "--vs", str(runs[1][0]), "-o", str(out)]) == 0
    errors: list[str] = []
    pg = open_page(browser, out.as_uri(), errors)
    assert pg.evaluate("document.body.classList.contains('report')")
    pg.click("[data-tab=diff]")
    pg.wait_for_selector("#tab-diff .diff-table tbody tr")
    assert rows(pg)[0]["name"].startswith(ALWAYS)
    pg.click("#tab-diff button[data-metric=incl]")
    pg.wait_for_selector("#tab-diff button[data-metric=incl].on")
    pg.wait_for_selector("#tab-diff .diff-table tbody tr")
    assert "Not available" not in (pg.locator("#tab-diff").text_content() or "")
    pg.locator("#tab-diff .diff-table tbody tr").first.click()
    pg.select_option("#align", "method")
    pg.wait_for_function("document.getElementById('align-note').textContent !== ''")
    assert "Not available" not in (pg.locator("#align-note").text_content() or "")
    pg.click("[data-tab=diffflame]")
    pg.wait_for_function("window.traceview.views.diffflame.data !== null")
    assert pg.evaluate("window.traceview.views.diffflame.data.metric") == "incl"  # the switch
    pg.click("#tab-diffflame button[data-width=baseline]")
    pg.wait_for_function("window.traceview.views.diffflame.data.side === 'baseline'")
    pg.wait_for_function("document.querySelectorAll('#timeline-cand .tl-label').length === 3")
    # the candidate's timeline draws its own tiles (side=cand), not the baseline's
    ends = pg.evaluate(
        "() => [window.traceview.state.trace.time.end_us, window.traceview.cmp.trace.time.end_us]"
    )
    assert ends[0] != ends[1]
    shot(pg, "compare-report")
    pg.close()
    assert not errors, errors
