"""`bigtable.print_table` prints exactly what rich prints for the same table (the stats table's
layout): on random rows (wide and combining characters, long words that fold, spaces that
wrap, nulls), at several widths, to a terminal and not, and on the stats of every corpus
trace."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text

from support.corpus import readable
from traceview.analysis.session import Session
from traceview.analysis.view import View
from traceview.exporters import bigtable
from traceview.exporters.bigtable import FEW, print_grid, print_table
from traceview.exporters.stats import rows as stats_rows
from traceview.exporters.stats import stats_table
from traceview.readers import load

WIDTHS = (60, 100, 139, 200)


def both(table_rows: list[dict[str, Any]], width: int, terminal: bool) -> tuple[str, str]:
    """(rich's output, print_table's) for the stats table of `table_rows`."""
    outs = []
    for fast in (False, True):
        buf = io.StringIO()
        console = Console(file=buf, width=width, force_terminal=terminal, color_system="standard")
        make, cells = stats_table(table_rows, f"{len(table_rows)} methods", width)
        if fast:
            print_table(console, make, cells)
        else:
            table = make()
            for c, text in cells:
                table.add_row(*c, Text(text))
            console.print(table)
        outs.append(buf.getvalue())
    return outs[0], outs[1]


NUMBER = st.one_of(st.none(), st.integers(0, 10**12).map(float), st.floats(0, 1e9).map(round))
WORD = st.text(st.sampled_from("abcXYZ.$<>;()[]/_09µ字漢é\u0301"), min_size=1, max_size=60)


@st.composite
def method(draw: st.DrawFn) -> dict[str, Any]:
    row: dict[str, Any] = {k: draw(NUMBER) for k in ("incl_cpu_us", "excl_cpu_us", "incl_wall_us")}
    row |= {k: draw(NUMBER) for k in ("excl_wall_us", "off_cpu_us")}
    row["calls"], row["recursive_calls"] = draw(st.integers(0, 10**7)), draw(st.integers(0, 99))
    row["class"] = " ".join(draw(st.lists(WORD, min_size=1, max_size=4)))
    row["name"] = draw(st.one_of(st.just(""), WORD))
    row["signature"] = draw(st.one_of(st.just(""), WORD))
    return row


@settings(max_examples=25, deadline=None)
@given(st.lists(method(), min_size=FEW, max_size=FEW + 8), st.sampled_from(WIDTHS), st.booleans())
def test_random_tables_print_as_rich_prints_them(
    table_rows: list[dict[str, Any]],
    width: int,
    terminal: bool,
) -> None:
    want, got = both(table_rows, width, terminal)
    assert got == want


@pytest.mark.parametrize("path", readable(), ids=lambda p: p.name)
def test_every_corpus_traces_stats_table(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = Session(load(path))
    table_rows = stats_rows(View(session, session.query()), None, None)
    by_rich: list[int] = []
    real = bigtable._print_cells

    def counted(*a: Any) -> Any:
        by_rich.append(1)
        return real(*a)

    monkeypatch.setattr(bigtable, "_print_cells", counted)
    for width in (100, 200):
        by_rich.clear()
        want, got = both(table_rows, width, terminal=False)
        assert got == want
        if width == 200 and len(table_rows) >= FEW:
            assert not by_rich  # the fast way was taken


def grid_both(rows: list[list[str]], right: list[bool], width: int, terminal: bool) -> list[str]:
    """(rich's output, print_grid's) for `traceview sql`'s results table of `rows`."""
    from rich.table import Table

    def make() -> Table:
        table = Table(show_edge=False, header_style="bold", box=None, pad_edge=False)
        for i, r in enumerate(right):
            table.add_column(f"c{i}", justify="right" if r else "left")
        return table

    outs = []
    for fast in (False, True):
        buf = io.StringIO()
        console = Console(
            file=buf, width=width, force_terminal=terminal, highlight=False, markup=False
        )
        if fast:
            print_grid(console, make, rows)
        else:
            table = make()
            for r in rows:
                table.add_row(*r)
            console.print(table)
        outs.append(buf.getvalue())
    return outs


CELL = st.one_of(WORD, st.integers(-(10**12), 10**12).map(str), st.just("NULL"))


@settings(max_examples=25, deadline=None)
@given(
    st.integers(1, 5).flatmap(
        lambda n: st.tuples(
            st.lists(st.lists(CELL, min_size=n, max_size=n), min_size=FEW, max_size=FEW + 8),
            st.lists(st.booleans(), min_size=n, max_size=n),
        )
    ),
    st.sampled_from((40, 120, 400)),
    st.booleans(),
)
def test_sql_grids_print_as_rich_prints_them(
    table: tuple[list[list[str]], list[bool]], width: int, terminal: bool
) -> None:
    rows, right = table
    want, got = grid_both(rows, right, width, terminal)
    assert got == want


def test_a_wide_grid_takes_the_fast_way(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [[str(i), f"name {i}" * (i % 7), "x"] for i in range(500)]
    slow = []
    monkeypatch.setattr(bigtable, "_print_cells", lambda *a: slow.append(1))
    grid_both(rows, [True, False, False], 400, False)
    assert not slow
