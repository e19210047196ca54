"""The `dump` format: `traceview -r`, the regression-only text dump (plain, stable, diffable):
totals, per-thread times, Method Stats on both clocks, diagnostics."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.profile import Profile
from traceview.analysis.view import View
from traceview.model import Diagnostic, MethodTable, printable

NAME = "dump"
SUFFIXES = (".txt",)
BINARY = False
SUBJECT = "view"


@dataclass(frozen=True)
class Options:
    """The dump takes no options: it always shows both clocks and every section."""


def _us(ns: int, whole: bool) -> str:
    return str(ns // 1000) if whole else f"{ns / 1000:.3f}"


def _whole_us(values: Iterable[npt.NDArray[np.int64]]) -> bool:
    return all(not np.any(v % 1000) for v in values)


def regress(
    prof: Profile, methods: MethodTable, diagnostics: Sequence[Diagnostic], clock: str
) -> str:
    """The `traceview -r` dump: totals, per-thread times, Method Stats, diagnostics.

    Times in µs (integers when every value is a whole µs, else 3 decimals); a clock the trace
    lacks shows `-`. Methods with at least one call, by decreasing inclusive time on `clock`,
    ties by method row; names from `methods` (renamed when deobfuscated).
    """
    trace = prof.trace
    clocks = prof.clocks
    whole = _whole_us(
        [prof.incl[c] for c in clocks]
        + [prof.excl[c] for c in clocks]
        + [prof.thread_total[c] for c in clocks]
    )

    def cell(c: str, value: int) -> str:
        return _us(value, whole) if c in clocks else "-"

    out: list[str] = []
    for c, label in (("cpu", "totalCpuTime"), ("wall", "totalRealTime")):
        total = f"{_us(prof.total(c), whole)}us" if c in clocks else "-"
        out.append(f"{label} {total}")
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
            f"{int(prof.thread_calls[i]):>9}  {printable(trace.threads.label(t))}"
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
    rows = prof.used(clock)
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
    for k, m in enumerate(rows.tolist()):
        vals = [col[k] for col in texts]
        out.append(row(vals, f"{n_calls[k]}+{r_calls[k]}", printable(methods.label(m))))
    if diagnostics:
        out.append("")
        out.append("Diagnostics:")
        for d in diagnostics:
            count = f" ({d.count})" if d.count is not None else ""
            out.append(f"  {d.code}{count}: {printable(d.message)}")
    return "\n".join(out) + "\n"


def export(view: View, out: IO[Any], options: Options) -> None:
    """Write the dump of the view's selection."""
    out.write(regress(view.profile(), view.methods, view.diagnostics(), view.query.clock))
