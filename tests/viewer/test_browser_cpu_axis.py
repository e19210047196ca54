"""A CPU-only corpus trace in the viewer: the call chart's axis is labelled as reconstructed from
record order, and a range drawn on it asks for a range on that axis whose CPU adds up."""

from __future__ import annotations

from typing import Any

import pytest

from support.browserkit import (
    fetch_json,
    open_page,
    serving,
    shot,
)
from support.corpus import corpus_path

pytestmark = pytest.mark.browser

SNS = "chanjin-traceviewlog/SNS_Tracing_2_Refresh.trace"  # clock=thread-cpu, several threads


def test_cpu_only_corpus_trace_labels_its_axis_and_ranges_follow_it(browser: Any) -> None:
    errors: list[str] = []
    with serving(corpus_path(SNS)) as v:
        pg = open_page(browser, v.url, errors)
        pg.wait_for_selector("#tab-profile .pt-row.method")
        label = pg.locator("#timeline .tl-axislabel")
        label.wait_for(state="visible")
        assert (label.text_content() or "") == "Axis reconstructed from record order"
        assert "order of records" in (label.get_attribute("title") or "")
        assert "reconstructed" in (pg.locator("#timeline .tl-corner").text_content() or "")
        trace = fetch_json(v, "/api/trace")
        assert trace["timeline_axis"] == "reconstructed"
        box = pg.locator("#timeline .tl-canvas").bounding_box()
        y = box["y"] + 10
        with pg.expect_response(lambda r: "/api/profile" in r.url and "t0=" in r.url) as rsp:
            pg.mouse.move(box["x"] + box["width"] * 0.3, y)
            pg.mouse.down()
            pg.mouse.move(box["x"] + box["width"] * 0.6, y, steps=4)
            pg.mouse.up()
        url = rsp.value.url
        query = url[url.index("?") :]
        answer = rsp.value.json()
        # the range is on the reconstructed axis: the threads' CPU inside it is its length
        t0 = float(query.split("t0=")[1].split("&")[0])
        t1 = float(query.split("t1=")[1].split("&")[0])
        whole = fetch_json(v, "/api/profile")
        assert answer["total"]["cpu_us"] < whole["total"]["cpu_us"]
        assert answer["total"]["cpu_us"] == pytest.approx(t1 - t0, abs=0.01)
        shot(pg, "cpu-axis-corpus")
        pg.close()
    assert not errors, errors
