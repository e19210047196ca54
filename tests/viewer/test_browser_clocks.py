"""Single-clock traces in the live viewer: a wall-only and a thread-CPU-only trace show only
their clock's columns, disable the other clock's button, and every view works."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from support.browserkit import (
    open_page,
    serving,
    settle,
    shot,
    table_names,
)
from support.tracebuild import make_trace
from traceview.model import Clock
from traceview.readers import load

pytestmark = pytest.mark.browser


def one_clock(path: Path, clock: Clock) -> Path:
    """A small two-thread trace recorded with only `clock` ("wall" or "thread-cpu")."""
    from traceview.writer import write

    def t(us: int) -> tuple[int | None, int | None]:
        return (None, us) if clock == "wall" else (us, None)

    events = []
    for tid, base in ((1, 0), (2, 3)):
        for name, at in (("com.a.Main.run", 0), ("com.a.Work.step", 5)):
            events.append((tid, "enter", name, *t(base + at)))
        events.append((tid, "exit", "com.a.Work.step", *t(base + 30)))
        events.append((tid, "exit", "com.a.Main.run", *t(base + 40)))
    trace = make_trace(events, clock=clock, names={1: "main", 2: "worker"})
    write(trace, path)
    load(path).validate()
    return path


@pytest.mark.parametrize("clock", ["wall", "thread-cpu"])
def test_single_clock_trace(browser: Any, tmp_path: Path, clock: Clock) -> None:
    path = one_clock(tmp_path / f"{clock}.trace", clock)
    errors: list[str] = []
    with serving(path) as viewer:
        page = open_page(browser, viewer.url, errors)
        page.wait_for_selector("#tab-profile .pt-row.method")
        heads = " ".join(page.locator("#tab-profile .pt-hcell").all_text_contents())
        have, lack = ("Real", "CPU") if clock == "wall" else ("CPU", "Real")
        assert have in heads and lack not in heads and "off-CPU" not in heads.lower()
        missing = "cpu" if clock == "wall" else "wall"
        assert page.locator(f'#clock button[data-clock="{missing}"]').is_disabled()
        assert "com.a.Main.run ()V" in table_names(page)
        for tab in ("flame", "topdown", "bottomup", "chart", "frames", "header", "profile"):
            page.click(f".tabs button[data-tab={tab}]")
            settle(page)
        box = page.locator("#timeline .tl-canvas").bounding_box()
        # a quarter in: inside main's Main.run on either axis (the CPU-only trace's threads
        # follow each other on its reconstructed axis: main's records come first in the file)
        page.mouse.move(box["x"] + box["width"] * 0.25, box["y"] + 8)
        page.wait_for_selector("#timeline .tip-grid span")
        tip = page.locator("#timeline .tooltip").text_content() or ""
        assert have in tip and lack not in tip.replace("Off-CPU", "")
        shot(page, f"clock-{clock}")
        page.close()
    assert not errors, errors
