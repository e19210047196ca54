"""The viewer of `traceview view --mapping`: original names in the table, the obfuscated name
in the tooltips (headless Chromium)."""

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
from support.obfuscate import obfuscate
from traceview.analysis.rename import MappingRename
from traceview.readers.mapping import parse_mapping
from traceview.synth import generate
from traceview.writer import write

pytestmark = pytest.mark.browser


def test_original_names_and_obfuscated_tooltips(browser: Any, tmp_path: Path) -> None:
    obf, mapping = obfuscate(generate(records=6000, threads=3, seed=4), "z")
    path = tmp_path / "obf.trace"
    write(obf, path)
    rename = MappingRename(parse_mapping(mapping))
    errors: list[str] = []
    with serving(path, rename) as viewer:
        page = open_page(browser, viewer.url, errors)
        page.wait_for_selector("#tab-profile .pt-row.method")
        names = table_names(page)
        assert names and not any(n.startswith("z.c") for n in names)
        titles = page.eval_on_selector_all(
            "#tab-profile .pt-row.method .pt-name", "els => els.map(e => e.title)"
        )
        assert any("\nobfuscated: z.c" in t for t in titles)
        canvas = page.locator("#timeline .tl-canvas")
        box = canvas.bounding_box()
        for frac in (0.1, 0.3, 0.5, 0.7, 0.9):
            page.mouse.move(box["x"] + box["width"] * frac, box["y"] + 8)
            settle(page)
            if page.locator("#timeline .tooltip .tip-obf").is_visible():
                break
        assert page.locator("#timeline .tooltip .tip-obf").is_visible()
        assert "obfuscated: z.c" in page.locator("#timeline .tooltip .tip-obf").inner_text()
        shot(page, "viewer-mapping-tooltip")
        page.close()
    assert not errors, errors
