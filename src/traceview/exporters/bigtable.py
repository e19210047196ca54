"""A rich table of many rows printed as rich prints it, in a fraction of the time: rich
measures and renders every cell of a `Table` (0.1–1 ms a row: 2.3 s for the 2,507 methods of
a 1.2 MB trace's `stats`). Here rich lays out the same table holding only the few rows that
measure as all of them do (each column's widest cell, and the last column's longest word),
which gives the title, the header, the borders and every column's width; the rows are then
written by the same rules: the cells before the last right-justified on one line, the last
one's text wrapped by rich's own `Text.wrap`, the box's body rules between them. The output
equals rich's, styles and all (tests/exporters/test_bigtable.py).

A table squeezed by a narrow console (rich crops its lines or cells) is printed by rich. The
table's columns must be laid out that way: every column but the last `no_wrap` and
right-justified, the last left-justified (wrapping or folding), cells plain text without
styles, vertical alignment top, padding (0, 1).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

FEW = 64  # rows: fewer are printed by rich itself
Row = tuple[Sequence[str], str]  # the cells before the last, the last column's text


def print_table(console: Console, make: Callable[[], Table], rows: Sequence[Row]) -> None:
    """Print the table `make()` (its columns, no rows yet) with `rows` on `console`."""
    from rich.cells import cell_len
    from rich.text import Text

    if len(rows) < FEW:
        _print_all(console, make, rows)
        return
    table = make()
    picked = {max(range(len(rows)), key=lambda r: cell_len(rows[r][1]))}
    picked.add(max(range(len(rows)), key=lambda r: _longest_word(rows[r][1])))
    for i in range(len(rows[0][0])):
        picked.add(max(range(len(rows)), key=lambda r: cell_len(rows[r][0][i])))
    for r in sorted(picked):
        table.add_row(*rows[r][0], Text(rows[r][1]))
    with console.capture() as captured:
        console.print(table)
    lines = captured.get().split("\n")[:-1]
    box = table.box
    assert box is not None
    at = next(i for i, line in enumerate(lines) if line.startswith(box.head_row_left))
    top = next(line for line in lines if line.startswith(box.top_left))
    if not top.endswith(box.top_right):  # wider than the console: rich crops every line
        _print_all(console, make, rows)
        return
    widths = [len(part) - 2 for part in top[1:-1].split(box.top_divider)]
    need = [max(cell_len(cells[i]) for cells, _ in rows) for i in range(len(widths) - 1)]
    if widths[-1] < 1 or any(w < n for w, n in zip(widths, need, strict=False)):
        _print_all(console, make, rows)  # squeezed by a narrow console: rich crops cells
        return
    out = lines[: at + 1]
    inner = box.mid_vertical
    for cells, text in rows:
        wrapped = Text(text).wrap(console, widths[-1], justify="left", overflow="fold")
        body = [line.plain + " " * (widths[-1] - cell_len(line.plain)) for line in wrapped]
        first = [c.rjust(w) for c, w in zip(cells, widths, strict=False)]
        for k, part in enumerate(body or [" " * widths[-1]]):
            cols = first if k == 0 else [" " * w for w in widths[:-1]]
            out.append(box.mid_left + inner.join(f" {c} " for c in [*cols, part]) + box.mid_right)
    out.append(lines[-1])
    console.file.write("\n".join(out) + "\n")


def _print_all(console: Console, make: Callable[[], Table], rows: Sequence[Row]) -> None:
    """The table printed by rich itself, every row measured and rendered."""
    from rich.text import Text

    table = make()
    for cells, text in rows:
        table.add_row(*cells, Text(text))
    console.print(table)


def _longest_word(text: str) -> int:
    from rich.cells import cell_len

    return max((cell_len(w) for w in text.split()), default=0)


__all__ = ["FEW", "Row", "print_table"]
