"""Plain-text and table renderings of a `Profile` and a merged call tree: the `traceview -r`
dump (plain, stable, diffable), the `stats` rows (JSON-ready dicts and a rich table) and the
`tree` lines. Sits after `analysis.profile` / `analysis.calltree`; the CLI prints the result.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.calls import CallTable
from traceview.analysis.profile import Profile

if TYPE_CHECKING:
    from rich.table import Table

    from traceview.analysis.calltree import CallTree

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")

COLUMNS = {  # stats --sort names -> json key
    "incl-cpu": "incl_cpu_us",
    "excl-cpu": "excl_cpu_us",
    "incl-wall": "incl_wall_us",
    "excl-wall": "excl_wall_us",
    "off-cpu": "off_cpu_us",
    "calls": "calls",
    "name": "name",
}


def clean(text: str) -> str:
    """A name from the trace made safe for one line of text: control characters as \\xNN."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _us(ns: int, whole: bool) -> str:
    return str(ns // 1000) if whole else f"{ns / 1000:.3f}"


def _whole_us(values: Iterable[npt.NDArray[np.int64]]) -> bool:
    return all(not np.any(v % 1000) for v in values)


def regress(prof: Profile, calls: CallTable | None = None) -> str:
    """The `traceview -r` dump: totals, per-thread times, Method Stats, diagnostics.

    Times in µs (integers when every value is a whole µs, else 3 decimals); a clock the trace
    lacks shows `-`. Methods with at least one call, by decreasing inclusive time on the
    preferred clock (cpu unless the trace is wall-only), ties by method row. The repair
    diagnostics listed are `calls.diagnostics` when a call table is given, else the profile's.
    """
    trace = prof.trace
    clocks = prof.clocks
    whole = _whole_us(
        [prof.incl[c] for c in clocks]
        + [prof.excl[c] for c in clocks]
        + [prof.thread_total[c] for c in clocks]
    )

    def cell(clock: str, value: int) -> str:
        return _us(value, whole) if clock in clocks else "-"

    out: list[str] = []
    for clock, label in (("cpu", "totalCpuTime"), ("wall", "totalRealTime")):
        out.append(f"{label} {cell(clock, prof.total(clock) if clock in clocks else 0)}us")
    if prof.estimates:
        out.append("sampled trace: times are estimates")
    out.append("")
    out.append("Thread Times:")
    out.append(f"{'id':>8} {'cpu_us':>12} {'real_us':>12} {'calls':>9}  name")
    for i, t in enumerate(prof.threads):
        cpu = cell("cpu", int(prof.thread_total["cpu"][i]) if "cpu" in clocks else 0)
        wall = cell("wall", int(prof.thread_total["wall"][i]) if "wall" in clocks else 0)
        out.append(
            f"{int(trace.threads.id[t]):>8} {cpu:>12} {wall:>12} "
            f"{int(prof.thread_calls[i]):>9}  {clean(trace.threads.label(t))}"
        )
    out.append("")
    out.append("Method Stats:")
    out.append(
        f"{'Excl Cpu':>12} {'Incl Cpu':>12} {'Excl Real':>12} {'Incl Real':>12} "
        f"{'Calls':>13}  Method"
    )

    def row(values: Sequence[str], n_calls: str, name: str) -> str:
        a, b, c, d = values
        return f"{a:>12} {b:>12} {c:>12} {d:>12} {n_calls:>13}  {name}"

    top = [
        cell("cpu", prof.toplevel["cpu"] if "cpu" in clocks else 0),
        cell("cpu", prof.total("cpu") if "cpu" in clocks else 0),
        cell("wall", prof.toplevel["wall"] if "wall" in clocks else 0),
        cell("wall", prof.total("wall") if "wall" in clocks else 0),
    ]
    out.append(row(top, f"{int((prof.thread_calls > 0).sum())}+0", "(toplevel)"))
    rows = prof.used()
    cols = [
        prof.excl.get("cpu"),
        prof.incl.get("cpu"),
        prof.excl.get("wall"),
        prof.incl.get("wall"),
    ]
    texts = [
        [_us(int(v), whole) for v in arr[rows].tolist()] if arr is not None else ["-"] * len(rows)
        for arr in cols
    ]
    n_calls = prof.calls[rows].tolist()
    r_calls = prof.recursive_calls[rows].tolist()
    methods = trace.methods
    for k, m in enumerate(rows.tolist()):
        vals = [col[k] for col in texts]
        out.append(row(vals, f"{n_calls[k]}+{r_calls[k]}", clean(methods.label(m))))
    diags = list(trace.diagnostics) + list(prof.diagnostics if calls is None else calls.diagnostics)
    if diags:
        out.append("")
        out.append("Diagnostics:")
        for d in diags:
            count = f" ({d.count})" if d.count is not None else ""
            out.append(f"  {d.code}{count}: {clean(d.message)}")
    return "\n".join(out) + "\n"


def method_rows(prof: Profile) -> list[dict[str, Any]]:
    """One JSON-ready dict per called method (µs keys; null for a missing clock), by
    decreasing inclusive time on the preferred clock."""
    methods = prof.trace.methods
    rows = prof.used()
    off = prof.off_cpu()
    off_excl = prof.excl["wall"] - prof.excl["cpu"] if off is not None else None
    out: list[dict[str, Any]] = []

    def us(arr: npt.NDArray[np.int64] | None, m: int) -> float | None:
        return None if arr is None else int(arr[m]) / 1000

    for m in rows.tolist():
        n = int(prof.calls[m])
        r = int(prof.recursive_calls[m])
        item: dict[str, Any] = {
            "method": m,
            "class": methods.class_name[m],
            "name": methods.name[m],
            "signature": methods.signature[m],
            "calls": n,
            "recursive_calls": r,
        }
        for clock in ("cpu", "wall"):
            item[f"incl_{clock}_us"] = us(prof.incl.get(clock), m)
            item[f"excl_{clock}_us"] = us(prof.excl.get(clock), m)
        item["off_cpu_us"] = us(off, m)
        item["off_cpu_excl_us"] = us(off_excl, m)
        total = n + r
        for clock in ("cpu", "wall"):
            v = item[f"incl_{clock}_us"]
            item[f"{clock}_per_call_us"] = v / total if v is not None and total else None
        item["off_cpu_per_call_us"] = (
            item["off_cpu_us"] / total if item["off_cpu_us"] is not None and total else None
        )
        pref = prof.preferred_clock
        whole = prof.total(pref)
        item["incl_percent"] = 100 * int(prof.incl[pref][m]) / whole if whole else 0.0
        out.append(item)
    return out


def thread_rows(prof: Profile) -> list[dict[str, Any]]:
    """Per selected thread: id, name, totals (µs, null for a missing clock), calls."""
    trace = prof.trace
    out: list[dict[str, Any]] = []
    for i, t in enumerate(prof.threads):
        item: dict[str, Any] = {"id": int(trace.threads.id[t]), "name": trace.threads.name[t]}
        for clock in ("cpu", "wall"):
            total = prof.thread_total.get(clock)
            item[f"{clock}_us"] = None if total is None else int(total[i]) / 1000
        item["calls"] = int(prof.thread_calls[i])
        out.append(item)
    return out


def sort_rows(rows: list[dict[str, Any]], column: str) -> list[dict[str, Any]]:
    """Rows sorted by a `COLUMNS` name: decreasing for numbers (nulls last), by name else."""
    key = COLUMNS[column]
    if key == "name":
        return sorted(rows, key=lambda r: (r["class"], r["name"], r["signature"]))
    return sorted(rows, key=lambda r: (r[key] is None, -(r[key] or 0)))


def stats_table(rows: list[dict[str, Any]], title: str, width: int = 200) -> Table:
    """A rich table of `method_rows` output (µs with thousands separators; `-` for null).
    Below 140 columns of `width` the exclusive wall and off-CPU columns are left out so the
    method names keep room."""
    from rich.table import Table
    from rich.text import Text

    cols = [
        ("Incl CPU µs", "incl_cpu_us"),
        ("Excl CPU µs", "excl_cpu_us"),
        ("Incl Wall µs", "incl_wall_us"),
        ("Excl Wall µs", "excl_wall_us"),
        ("Off-CPU µs", "off_cpu_us"),
    ]
    if width < 140:
        cols = [c for c in cols if c[1] not in ("excl_wall_us", "off_cpu_us")]
    table = Table(title=title, header_style="bold", expand=False)
    for head, _ in cols:
        table.add_column(head, justify="right", no_wrap=True)
    table.add_column("Calls", justify="right", no_wrap=True)
    table.add_column("Method", overflow="fold", min_width=20)

    def fmt(v: float | None) -> str:
        return "-" if v is None else f"{v:,.0f}" if float(v).is_integer() else f"{v:,.3f}"

    for r in rows:
        table.add_row(
            *[fmt(r[key]) for _, key in cols],
            f"{r['calls']}+{r['recursive_calls']}",
            Text(clean(f"{r['class']}.{r['name']} {r['signature']}")),
        )
    return table


def tree_lines(tree: CallTree, max_depth: int | None = None) -> list[str]:
    """One line per node of a merged top-down tree: indent, inclusive/exclusive on each
    clock (µs), calls, method label."""
    clocks = tree.clocks
    methods = tree.trace.methods
    out = []
    head = "  ".join(f"{'incl ' + c + ' us':>14} {'excl ' + c + ' us':>14}" for c in clocks)
    out.append(f"{head} {'calls':>9}  method")
    keep = np.ones(len(tree), dtype=bool) if max_depth is None else tree.depth <= max_depth
    idx = np.flatnonzero(keep)
    incl = {c: tree.incl[c][idx].tolist() for c in clocks}
    excl = {c: tree.excl[c][idx].tolist() for c in clocks}
    count = tree.calls[idx].tolist()
    depth = tree.depth[idx].tolist()
    method = tree.method[idx].tolist()
    for k in range(len(idx)):
        times = "  ".join(
            f"{incl[c][k] / 1000:>14,.3f} {excl[c][k] / 1000:>14,.3f}" for c in clocks
        )
        name = "(toplevel)" if method[k] < 0 else clean(methods.label(method[k]))
        out.append(f"{times} {count[k]:>9}  {'  ' * depth[k]}{name}")
    return out
