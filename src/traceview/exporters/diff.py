"""The `diff` format: a comparison of runs (`analysis.diff.DiffView`) as a terminal table, and
the wording every diff format shares (`exporters/diff_json.py`, `exporters/junit.py` and
`exporters/markdown.py` render the same result as JSON and for CI).

A diff has no one session and query — it is many runs per side — so its subject is the
finished `DiffView` computed in analysis (subject kind `runs`). The formats compute nothing:
every number, status and verdict is the DiffView's, so all four agree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import IO, Any

from traceview.analysis.compare import Comparison
from traceview.analysis.diff import DiffView
from traceview.exporters.diffpaths import changed_paths, path_lines, paths_of
from traceview.model import printable

NAME = "diff"
SUFFIXES: tuple[str, ...] = ()
BINARY = False
SUBJECT = "runs"
DEFAULT_LIMIT = 40  # rows of the text and Markdown tables (JSON lists every method)
METRIC_WORDS = {"incl": "inclusive", "excl": "exclusive"}


@dataclass(frozen=True)
class Options:
    """`limit`: rows of the methods table (None: `DEFAULT_LIMIT`, 0: all)."""

    limit: int | None = None


def percent(rel: float, on_base: bool = True) -> str:
    """A relative change as `+30.0 %`, `-` for NaN (0 on both sides). An infinite change (a
    zero baseline) reads `new` only when the row is absent from the baseline (`on_base`
    False), else `from 0`: a method called in a sampled run can show no time at all."""
    if math.isnan(rel):
        return "-"
    if math.isinf(rel):
        return "from 0" if on_base else "new"
    return f"{100 * rel:+.1f} %"


def ms(ns: float) -> str:
    """ns as milliseconds with three decimals."""
    return f"{ns / 1e6:,.3f}"


def gate_text(dv: DiffView) -> str:
    """One sentence on what fails the gate."""
    th = dv.thresholds
    pats = f" among {', '.join(th.methods)}" if th.methods else ""
    text = (
        f"gate: median {METRIC_WORDS[th.metric]} {dv.clock} time{pats} ≥ "
        f"{th.min_time_ns / 1e6:g} ms, slower by more than {100 * th.fail_above:g} %"
    )
    if dv.critical is None:
        return text + " (one run per side: no run-to-run spread known)"
    return (
        f"{text} and beyond the run-to-run spread at {100 * th.confidence:g} % confidence "
        f"(t > {dv.critical:.3f} for {len(dv.baseline)} + {len(dv.candidate)} runs)"
    )


def verdict(dv: DiffView, row: int) -> str:
    """Why a method has its status, in one line (e.g. a JUnit failure message)."""
    m, th = dv.methods, dv.thresholds
    ch = m.change(th.metric)
    rel = percent(float(ch.rel[row]), bool(m.on_base[row]))
    line = (
        f"{METRIC_WORDS[th.metric]} {dv.clock} time {rel} "
        f"({ms(ch.base[row])} ms -> {ms(ch.cand[row])} ms, {float(ch.delta[row]) / 1e6:+,.3f} ms)"
    )
    if ch.known:
        word = "beyond" if ch.significant[row] else "within"
        return f"{line}, {word} the run-to-run spread (t = {float(ch.t[row]):.2f})"
    return f"{line}, no run-to-run spread known"


def shown_rows(dv: DiffView, limit: int | None) -> tuple[list[int], int]:
    """Rows for the tables: every status but `ungated`, in display order, cut to `limit`
    (None: `DEFAULT_LIMIT`, 0: all); and how many were left out."""
    rows = [i for i in dv.order() if dv.methods.status[i] != "ungated"]
    n = DEFAULT_LIMIT if limit is None else limit
    if n <= 0:
        return rows, 0
    return rows[:n], max(len(rows) - n, 0)


def counts(dv: DiffView) -> dict[str, int]:
    """How many methods have each status."""
    out: dict[str, int] = {}
    for s in dv.methods.status:
        out[s] = out.get(s, 0) + 1
    return out


def summary(dv: DiffView) -> str:
    """`2 regressions, 1 improvement, 3 new, 1 gone` (only the statuses present)."""
    c = counts(dv)
    parts = []
    for status, one, many in (
        ("regression", "regression", "regressions"),
        ("improvement", "improvement", "improvements"),
        ("new", "new method", "new methods"),
        ("gone", "method gone", "methods gone"),
        ("noise", "change within the spread", "changes within the spread"),
    ):
        if c.get(status):
            parts.append(f"{c[status]} {one if c[status] == 1 else many}")
    return ", ".join(parts) or "no change beyond the thresholds"


def export(dv: DiffView, out: IO[Any], options: Options) -> None:
    """`diff`: rich tables sized to the terminal (160 columns when not a terminal)."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    is_tty = hasattr(out, "isatty") and out.isatty()
    console = (
        Console(file=out, highlight=False)
        if is_tty
        else Console(file=out, width=160, highlight=False)
    )
    wide = console.width >= 130
    m, metric = dv.methods, dv.thresholds.metric
    other = "incl" if metric == "excl" else "excl"
    out_of = f"{len(dv.baseline)} baseline run(s) vs {len(dv.candidate)} candidate run(s)"
    console.print(Text(f"{out_of}, {dv.clock} clock"))
    console.print(Text(gate_text(dv)))
    rows, more = shown_rows(dv, options.limit)
    title = f"Methods: median {METRIC_WORDS[metric]} {dv.clock} time, ms"
    table = Table(title=title, header_style="bold", expand=False)
    table.add_column("Status", no_wrap=True)
    for head in ("Base", "Cand", "Δ ms", "Δ"):
        table.add_column(head, justify="right", no_wrap=True)
    table.add_column("t", justify="right", no_wrap=True)
    if wide:
        table.add_column(f"Δ {METRIC_WORDS[other][:4]}", justify="right", no_wrap=True)
        table.add_column("Calls", justify="right", no_wrap=True)
    table.add_column("Method", overflow="fold", min_width=24)
    ch, oc = m.change(metric), m.change(other)
    for i in rows:
        t = f"{float(ch.t[i]):.1f}" if ch.known and math.isfinite(ch.t[i]) else "-"
        cells = [
            m.status[i],
            ms(ch.base[i]),
            ms(ch.cand[i]),
            f"{float(ch.delta[i]) / 1e6:+,.3f}",
            percent(float(ch.rel[i]), bool(m.on_base[i])),
            t,
        ]
        if wide:
            cells += [
                percent(float(oc.rel[i]), bool(m.on_base[i])),
                f"{m.calls.base[i]:g} → {m.calls.cand[i]:g}",
            ]
        name = Text(printable(m.full_name(i)))
        name.append(" " + printable(m.signature[i]), style="dim")
        style = {"regression": "bold red", "improvement": "green"}.get(m.status[i], "")
        table.add_row(*cells, name, style=style)
    console.print(table)
    if more:
        console.print(Text(f"({more} more rows: --limit 0 shows all)"))
    _paths_text(dv, console, options.limit)
    th = dv.threads
    tt = Table(title=f"Threads: {dv.clock} time, ms", header_style="bold", expand=False)
    for head in ("Base", "Cand", "Δ", "t", "Calls"):
        tt.add_column(head, justify="right", no_wrap=True)
    tt.add_column("Thread", overflow="fold", min_width=16)
    for i in range(len(th)):
        tot = th.total
        t = f"{float(tot.t[i]):.1f}" if tot.known and math.isfinite(tot.t[i]) else "-"
        tt.add_row(
            ms(tot.base[i]),
            ms(tot.cand[i]),
            percent(float(tot.rel[i]), bool(th.on_base[i])),
            t,
            f"{th.calls.base[i]:g} → {th.calls.cand[i]:g}",
            Text(printable(th.name[i])),
        )
    console.print(tt)
    for note in dv.notes:
        console.print(Text(f"note: {printable(note)}"))
    console.print(Text(summary(dv)))


def _paths_text(dv: DiffView, console: Any, limit: int | None) -> None:
    """The changed call paths as a table (a comparison of methods alone has none)."""
    from rich.table import Table
    from rich.text import Text

    paths = paths_of(dv)
    if not isinstance(dv, Comparison) or paths is None:
        return
    rows, more = changed_paths(dv, paths, limit)
    metric = dv.thresholds.metric
    title = f"Call paths: median {METRIC_WORDS[metric]} {dv.clock} time, ms"
    table = Table(title=title, header_style="bold", expand=False)
    table.add_column("State", no_wrap=True)
    for head in ("Base", "Cand", "Δ ms", "Δ", "t", "Inclusive"):
        table.add_column(head, justify="right", no_wrap=True)
    table.add_column("Path", overflow="fold", min_width=24)
    ch = paths.change(metric)
    for i, text in zip(rows, path_lines(dv, paths, rows), strict=True):
        t = f"{float(ch.t[i]):.1f}" if ch.known and math.isfinite(ch.t[i]) else "-"
        word = paths.state_name(i)
        table.add_row(
            word,
            ms(ch.base[i]),
            ms(ch.cand[i]),
            f"{float(ch.delta[i]) / 1e6:+,.3f}",
            percent(float(ch.rel[i]), bool(paths.on_base[i])),
            t,
            f"{ms(paths.incl.base[i])} → {ms(paths.incl.cand[i])}",
            Text(printable(text)),
            style={"slower": "red", "faster": "blue", "new": "red", "gone": "blue"}.get(word, ""),
        )
    if rows:
        console.print(table)
    else:
        console.print(Text("Call paths: no path changed beyond the thresholds"))
    if more:
        console.print(Text(f"({more} more paths: --limit 0 shows all)"))
