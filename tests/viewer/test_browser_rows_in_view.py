"""The call chart of a trace with hundreds of threads (issue 23: 200 threads' whole-trace tiles
asked at once took 4.2 s at 1 GB): the first screen asks the level-0 tile of the rows in view
only, and a row scrolled into view asks for its own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from support.browserkit import Viewer, serving, settle, shot, watch
from support.tracebuild import make_trace
from traceview.writer import write

pytestmark = pytest.mark.browser
THREADS = 300


def _many_threads() -> Any:
    ev: list[tuple[int, str, str, int | None, int | None]] = []
    for k in range(THREADS):
        tid = 10 + k
        ev.append((tid, "enter", "com.app.Worker.run", 5 + k, 5 + k))
        ev.append((tid, "enter", "com.app.Worker.step", 6 + k, 6 + k))
        ev.append((tid, "exit", "com.app.Worker.step", 20 + 2 * k, 20 + 2 * k))
        ev.append((tid, "exit", "com.app.Worker.run", 30 + 3 * k, 30 + 3 * k))
    names = {10 + k: f"worker-{k:03d}" for k in range(THREADS)}
    return make_trace(ev, names=names)


@pytest.fixture(scope="module")
def viewer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Viewer]:
    path: Path = tmp_path_factory.mktemp("rows") / "many.trace"
    write(_many_threads(), path)
    with serving(path) as v:
        yield v


def _level0(requests: list[str]) -> set[int]:
    rows = set()
    for url in requests:
        q = parse_qs(urlparse(url).query)
        if urlparse(url).path == "/api/timeline" and q.get("level") == ["0"]:
            rows.add(int(q["thread"][0]))
    return rows


def test_only_the_rows_in_view_ask_for_their_tiles(browser: Any, viewer: Viewer) -> None:
    errors: list[str] = []
    asked: list[str] = []
    pg = watch(browser.new_page(viewport={"width": 1280, "height": 800}, bypass_csp=True), errors)
    pg.on("request", lambda r: asked.append(r.url))  # from the first request on
    pg.goto(viewer.url)
    pg.wait_for_selector("#tab-profile .pt-row.method")
    settle(pg)
    first = _level0(asked)
    assert 0 < len(first) < THREADS // 3, len(first)  # before: all 300 at once
    shot(pg, "rows-in-view-first")
    pg.eval_on_selector(".tl-scroll", "el => { el.scrollTop = el.scrollHeight; }")
    settle(pg)
    later = _level0(asked)
    assert later - first, "rows scrolled into view asked for nothing"
    assert len(later) < THREADS, len(later)
    shot(pg, "rows-in-view-scrolled")
    pg.close()
    assert not errors, errors
