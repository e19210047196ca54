"""dmtracedump's `-h` pages in Chromium: the report's class sections open and close, its
`#m<index>` links land on the method, and the `-d -h` tables sort by a clicked column with
the inlined sorter (no console errors, nothing loaded from the network)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from support.browserkit import open_file, shot
from support.dmtracedump_run import ours
from traceview.synth import generate
from traceview.writer import write

pytestmark = pytest.mark.browser


def _traces(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "a.trace", tmp_path / "b.trace"
    write(generate(records=6000, threads=3, seed=31, balanced=True), a, variant="regular")
    write(generate(records=7000, threads=3, seed=32, balanced=True), b, variant="regular")
    return a, b


def test_report_sections_toggle_and_links(
    browser: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    a, _ = _traces(tmp_path)
    status, html, _ = ours(["-h", a], capsys)
    assert status == 0
    path = tmp_path / "report.html"
    path.write_bytes(html)
    errors: list[str] = []
    page = open_file(browser, path, errors)
    section = page.locator("#d0")
    assert not section.is_visible()
    page.locator("div.link").first.click()
    assert section.is_visible()
    assert page.locator("#xd0").inner_text() == "-"
    page.locator('a[href="#m1"]').first.click()
    assert page.evaluate("location.hash") == "#m1"
    shot(page, "dmtracedump-report")
    assert errors == []
    page.close()


def test_diff_tables_sort_by_clicked_column(
    browser: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    a, b = _traces(tmp_path)
    status, html, _ = ours(["-h", "-d", a, b], capsys)
    assert status == 0
    path = tmp_path / "diff.html"
    path.write_bytes(html)
    errors: list[str] = []
    page = open_file(browser, path, errors)

    def column(i: int) -> list[str]:
        texts: list[str] = page.eval_on_selector_all(
            "#exclusive_table tr",
            f"rows => rows.slice(1).map(r => r.cells[{i}].textContent.trim())",
        )
        return texts

    diffs = [int(x) for x in column(3)]
    assert diffs == sorted(diffs, reverse=True)  # dmtracedump's order
    page.locator("#exclusive_table th").nth(1).click()  # Run 1 (us), largest first
    run1 = [int(x) for x in column(1)]
    assert run1 == sorted(run1, reverse=True)
    page.locator("#exclusive_table th").nth(1).click()  # again: smallest first
    assert [int(x) for x in column(1)] == sorted(run1)
    page.locator("#exclusive_table th").nth(0).click()  # names
    names = column(0)
    assert names == sorted(names, key=str.lower, reverse=True)
    assert page.locator("#exclusive_table tr.odd").count() > 0
    shot(page, "dmtracedump-diff")
    assert errors == []
    page.close()
