"""The `stats` format: per-method statistics on both clocks as a terminal table; the rows
(`rows`) are shared with `exporters/stats_json.py` (shape in docs/json.md)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.profile import Profile
from traceview.analysis.view import View
from traceview.exporters.bigtable import Row, print_table
from traceview.exporters.notes import note_lines
from traceview.model import MethodTable, printable, visible

if TYPE_CHECKING:
    from rich.table import Table

NAME = "stats"
SUFFIXES: tuple[str, ...] = ()
BINARY = False
SUBJECT = "view"

COLUMNS = {  # stats --sort names -> json key
    "incl-cpu": "incl_cpu_us",
    "excl-cpu": "excl_cpu_us",
    "incl-wall": "incl_wall_us",
    "excl-wall": "excl_wall_us",
    "off-cpu": "off_cpu_us",
    "calls": "calls",
    "name": "name",
}


@dataclass(frozen=True)
class Options:
    """`sort`: a `COLUMNS` name (default: inclusive time on the query's clock); `limit`: at
    most this many methods (default all)."""

    sort: str | None = None
    limit: int | None = None


def method_rows(
    prof: Profile, methods: MethodTable, clock: str, timeless: bool = False
) -> list[dict[str, Any]]:
    """One JSON-ready dict per called method (µs keys; null for a missing clock, and every
    time null for a trace without times), by decreasing inclusive time on `clock` (a
    timeless trace: calls in the subtree); `incl_percent` of the selection's total on it."""
    rows = prof.used(clock)
    off = prof.off_cpu()
    off_excl = prof.excl["wall"] - prof.excl["cpu"] if off is not None else None
    out: list[dict[str, Any]] = []

    def us(arr: npt.NDArray[np.int64] | None, m: int) -> float | None:
        return None if arr is None or timeless else int(arr[m]) / 1000

    for m in rows.tolist():
        n = int(prof.calls[m])
        r = int(prof.recursive_calls[m])
        item: dict[str, Any] = {
            "method": m,
            "class": visible(methods.class_name[m]),
            "name": visible(methods.name[m]),
            "signature": visible(methods.signature[m]),
            "calls": n,
            "recursive_calls": r,
        }
        if methods.obfuscated is not None:  # deobfuscated: the label as the file wrote it
            item["obfuscated"] = visible(methods.obfuscated[m]) or None
        for c in ("cpu", "wall"):  # not `clock`: the selected clock is used below
            item[f"incl_{c}_us"] = us(prof.incl.get(c), m)
            item[f"excl_{c}_us"] = us(prof.excl.get(c), m)
        item["off_cpu_us"] = us(off, m)
        item["off_cpu_excl_us"] = us(off_excl, m)
        total = n + r
        for c in ("cpu", "wall"):
            v = item[f"incl_{c}_us"]
            item[f"{c}_per_call_us"] = v / total if v is not None and total else None
        item["off_cpu_per_call_us"] = (
            item["off_cpu_us"] / total if item["off_cpu_us"] is not None and total else None
        )
        whole = prof.total(clock)
        item["incl_percent"] = (
            None if timeless else 100 * int(prof.incl[clock][m]) / whole if whole else 0.0
        )
        out.append(item)
    return out


def sort_rows(rows: list[dict[str, Any]], column: str) -> list[dict[str, Any]]:
    """Rows sorted by a `COLUMNS` name: decreasing for numbers (nulls last), by name else."""
    key = COLUMNS[column]
    if key == "name":
        return sorted(rows, key=lambda r: (r["class"], r["name"], r["signature"]))
    return sorted(rows, key=lambda r: (r[key] is None, -(r[key] or 0)))


def stats_table(
    rows: list[dict[str, Any]], title: str, width: int = 200
) -> tuple[Callable[[], Table], list[Row]]:
    """A rich table of `method_rows` output (µs with thousands separators; `-` for null): a
    maker of its columns and its rows (`bigtable.print_table`). Below 140 columns of `width`
    the exclusive wall and off-CPU columns are left out so the method names keep room."""
    cols = [
        ("Incl CPU µs", "incl_cpu_us"),
        ("Excl CPU µs", "excl_cpu_us"),
        ("Incl Wall µs", "incl_wall_us"),
        ("Excl Wall µs", "excl_wall_us"),
        ("Off-CPU µs", "off_cpu_us"),
    ]
    if width < 140:
        cols = [c for c in cols if c[1] not in ("excl_wall_us", "off_cpu_us")]

    def make() -> Table:
        from rich.table import Table

        table = Table(title=title, header_style="bold", expand=False)
        for head, _ in cols:
            table.add_column(head, justify="right", no_wrap=True)
        table.add_column("Calls", justify="right", no_wrap=True)
        table.add_column("Method", overflow="fold", min_width=20)
        return table

    def fmt(v: float | None) -> str:
        return "-" if v is None else f"{v:,.0f}" if float(v).is_integer() else f"{v:,.3f}"

    cells: list[Row] = [
        (
            [*(fmt(r[key]) for _, key in cols), f"{r['calls']}+{r['recursive_calls']}"],
            printable(_label(r)),
        )
        for r in rows
    ]
    return make, cells


def _label(r: dict[str, Any]) -> str:
    """`class.method signature`, as `MethodTable.label` writes it (a row without a method
    name, e.g. a native simpleperf frame, is its class text alone)."""
    full = f"{r['class']}.{r['name']}" if r["name"] else r["class"]
    return f"{full} {r['signature']}" if r["signature"] else full


def rows(view: View, sort: str | None, limit: int | None) -> list[dict[str, Any]]:
    """The method rows of the view, sorted (`sort`, default inclusive on the query's clock)
    and cut to `limit`."""
    q = view.query
    out = method_rows(view.profile(), view.methods, q.clock, view.session.timeless)
    if sort:
        out = sort_rows(out, sort)
    if limit is not None:
        out = out[: max(limit, 0)]
    return out


def export(view: View, out: IO[Any], options: Options) -> None:
    """`stats`: a rich table sized to the terminal (200 columns when not a terminal)."""
    from rich.console import Console

    table_rows = rows(view, options.sort, options.limit)
    prof = view.profile()
    title = f"{len(table_rows)} methods" + (" (sampled: estimates)" if prof.estimates else "")
    if view.session.timeless:
        title += " — order of events: this file has no times"
    is_tty = hasattr(out, "isatty") and out.isatty()
    console = Console(file=out) if is_tty else Console(file=out, width=200)
    print_table(console, *stats_table(table_rows, title, console.width))
    out.write(note_lines(view.diagnostics()))
