"""A rich table of many rows printed as rich prints it, in a fraction of the time: rich
measures and renders every cell of a `Table` (0.1–1 ms a row: 2.3 s for the 2,507 methods of
a 1.2 MB trace's `stats`). Here rich lays out the same table holding only the few rows that
measure as all of them do (each column's widest cell, and the last column's longest word),
which gives the title, the header, the borders and every column's width; the rows are then
written by the same rules: the cells before the last right-justified on one line, the last
one's text wrapped by rich's own `Text.wrap`, the box's body rules between them. The output
equals rich's, styles and all (tests/exporters/test_bigtable.py).

`print_grid` does the same for a table without a box (`traceview sql`'s results: `SELECT *
FROM calls` of that trace, 35k rows, 55 s → 2.7 s).

A table squeezed by a narrow console (rich crops its lines or cells) is printed by rich. The
table's columns must be laid out that way: every column but the last `no_wrap` and
right-justified, the last left-justified (wrapping or folding), cells plain text without
styles, vertical alignment top, padding (0, 1).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

FEW = 64  # rows: fewer are printed by rich itself
Row = tuple[Sequence[str], str]  # the cells before the last, the last column's text


def print_table(console: Console, make: Callable[[], Table], rows: Sequence[Row]) -> None:
    """Print the table `make()` (its columns, no rows yet) with `rows` on `console`."""
    from rich.cells import cell_len
    from rich.text import Text

    table = make()
    if len(rows) < FEW:
        _print_cells(console, table, [[*cells, Text(text)] for cells, text in rows])
        return
    cells_of = (cells for cells, _ in rows)
    lengths = [[cell_len(c) for c in column] for column in zip(*cells_of, strict=True)]
    picked = {_widest([cell_len(t) for _, t in rows]), *(_widest(n) for n in lengths)}
    picked.add(_widest([max((cell_len(w) for w in t.split()), default=0) for _, t in rows]))
    for r in sorted(picked):  # rows that measure as all of them: the same layout
        table.add_row(*rows[r][0], Text(rows[r][1]))
    with console.capture() as captured:
        console.print(table)
    lines = captured.get().split("\n")[:-1]
    box = table.box
    assert box is not None
    at = next(i for i, line in enumerate(lines) if line.startswith(box.head_row_left))
    top = next(line for line in lines if line.startswith(box.top_left))
    widths = [len(part) - 2 for part in top[1:-1].split(box.top_divider)]
    cropped = not top.endswith(box.top_right) or widths[-1] < 1  # by a narrow console
    if cropped or any(w < max(n) for w, n in zip(widths, lengths, strict=False)):
        _print_cells(console, make(), [[*cells, Text(text)] for cells, text in rows])
        return
    out = lines[: at + 1]
    inner = box.mid_vertical
    for cells, text in rows:
        wrapped = Text(text).wrap(console, widths[-1], justify="left", overflow="fold")
        body = [_pad(line.plain, widths[-1], "left") for line in wrapped]
        first = [c.rjust(w) for c, w in zip(cells, widths, strict=False)]
        for k, part in enumerate(body or [" " * widths[-1]]):
            cols = first if k == 0 else [" " * w for w in widths[:-1]]
            out.append(box.mid_left + inner.join(f" {c} " for c in [*cols, part]) + box.mid_right)
    out.append(lines[-1])
    console.file.write("\n".join(out) + "\n")


def print_grid(console: Console, make: Callable[[], Table], rows: Sequence[Sequence[str]]) -> None:
    """Print the table `make()` without a box or edge padding (`traceview sql`'s results:
    cells one line each, two spaces apart, justified as their columns say) with `rows`."""
    from rich.cells import cell_len

    table = make()
    lengths = [[cell_len(c) for c in column] for column in zip(*rows, strict=True)]
    heads = [cell_len(str(c.header)) for c in table.columns]
    widths = [max([h, *n]) for h, n in zip(heads, lengths or [[]] * len(heads), strict=True)]
    if len(rows) < FEW or sum(widths) + 2 * len(widths) - 2 > console.width:
        _print_cells(console, table, rows)  # few, or wrapped to a narrow console
        return
    for k in sorted({_widest(n) for n in lengths}):  # the same layout as all the rows
        table.add_row(*rows[k])
    with console.capture() as captured:
        console.print(table)
    out = [captured.get().split("\n")[0]]  # the header
    justify = [c.justify for c in table.columns]
    for r in rows:
        out.append("  ".join(_pad(c, w, j) for c, w, j in zip(r, widths, justify, strict=True)))
    console.file.write("\n".join(out) + "\n")


def _widest(lengths: list[int]) -> int:
    """The row of the longest of `lengths` (the first on ties)."""
    return max(range(len(lengths)), key=lengths.__getitem__)


def _pad(text: str, width: int, justify: str) -> str:
    from rich.cells import cell_len

    room = " " * (width - cell_len(text))
    return room + text if justify == "right" else text + room


def _print_cells(console: Console, table: Table, rows: Sequence[Sequence[Any]]) -> None:
    """`table` printed by rich itself with `rows`, every cell measured and rendered."""
    for r in rows:
        table.add_row(*r)
    console.print(table)


__all__ = ["FEW", "Row", "print_grid", "print_table"]
