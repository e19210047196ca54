"""Real traces from ../shared/corpus in the live viewer: thread rows and the profile table
against the engine, the overflow / sampled banners, and no script errors (skipped when the
corpus is absent)."""

from __future__ import annotations

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
    table_names,
)
from support.corpus import corpus_path
from traceview.readers import load

pytestmark = pytest.mark.browser

TRACES = [
    "aosp-perflib-studio/char_2_bytes.trace",  # non-ASCII names, 70k records
    "chanjin-traceviewlog/SNS_Tracing_2_Refresh.trace",  # thread-cpu only, 319k records
    "lilong9898-androidtracedataanalyzer/example_dmtrace.trace",  # sampled, 45 threads
    "pmadishetti9-profilertester/cpu-art-new.trace",  # streaming, Android Studio recording
    "sentry-vroom-specto/data_file_overflow.trace",  # overflowed buffer, enters only
]


@pytest.fixture(scope="module", params=TRACES)
def served(request: pytest.FixtureRequest) -> Iterator[tuple[Path, Viewer]]:
    path = corpus_path(request.param)
    with serving(path) as v:
        yield path, v


def test_corpus_trace_in_viewer(browser: Any, served: tuple[Path, Viewer]) -> None:
    path, viewer = served
    trace = load(path)
    trace.validate()
    errors: list[str] = []
    page = open_page(browser, viewer.url, errors)
    info = fetch_json(viewer, "/api/trace")
    assert page.locator("#timeline .tl-label").count() == len(trace.threads) == len(info["threads"])
    clock = info["default_clock"]
    ranking = engine_ranking(path, clock)
    if ranking:
        page.wait_for_selector("#tab-profile .pt-row.method")
        labels = fetch_json(viewer, "/api/methods")["label"]
        assert table_names(page)[:8] == [labels[m] for m, _ in ranking[:8]]
    banners = page.locator("#banners").text_content() or ""
    if trace.header.overflow:
        assert "overflow" in banners
    if info["estimates"]:
        assert "estimates" in banners
    settle(page)
    shot(page, "corpus-" + path.stem)
    page.close()
    assert not errors, errors
