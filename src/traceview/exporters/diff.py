"""The `diff` exporters: a comparison of runs (`analysis.diff.DiffView`) as a terminal table
(`TEXT`) or JSON (`JSON`, shape in docs/json.md); `exporters/junit.py` and
`exporters/markdown.py` render the same result for CI.

One contract for every format: an `Exporter` renders one subject into an open stream with
`export(subject, out, options)`. For single-trace formats the subject is a `View`; a diff has
no one session and query — it is many runs per side — so its subject is the finished
`DiffView` computed in analysis, and these exporters are `Exporter[DiffView]`, registered in
the same table and chosen the same way. They compute nothing: every number, status and
verdict is the DiffView's, so all four formats agree. Shared wording lives here.
"""

from __future__ import annotations

import math
from typing import IO, Any

from traceview.analysis.compare import Comparison
from traceview.analysis.diff import DiffView
from traceview.analysis.significance import Change
from traceview.exporters import Exporter, Options
from traceview.exporters.diffpaths import changed_paths, path_json, path_lines, paths_of
from traceview.exporters.jsonshape import dumps, us1
from traceview.model import printable, visible

DEFAULT_LIMIT = 40  # rows of the text and Markdown tables (JSON lists every method)
METRIC_WORDS = {"incl": "inclusive", "excl": "exclusive"}


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


def _num(x: float, scale: float = 1000.0) -> float | None:
    """ns -> µs (rounded to the ns) for JSON; NaN and inf -> null."""
    if not math.isfinite(x):
        return None
    return us1(x) if scale == 1000.0 else round(x / scale, 3)


def change_json(ch: Change, i: int, unit_us: bool = True) -> dict[str, Any]:
    """One `Change` row as JSON (`*_us` for times, plain numbers for counts)."""
    scale = 1000.0 if unit_us else 1.0
    sfx = "_us" if unit_us else ""
    rel = float(ch.rel[i])
    return {
        f"baseline{sfx}": _num(float(ch.base[i]), scale),
        f"candidate{sfx}": _num(float(ch.cand[i]), scale),
        f"change{sfx}": _num(float(ch.delta[i]), scale),
        "change_percent": round(100 * rel, 3) if math.isfinite(rel) else None,
        f"baseline_spread{sfx}": _num(float(ch.base_spread[i]), scale),
        f"candidate_spread{sfx}": _num(float(ch.cand_spread[i]), scale),
        "t": round(float(ch.t[i]), 3) if ch.known and math.isfinite(ch.t[i]) else None,
        "significant": bool(ch.significant[i]) if ch.known else None,
    }


def diff_json(dv: DiffView) -> dict[str, Any]:
    """The whole comparison as one JSON-ready dict (docs/json.md, "diff")."""
    m, th = dv.methods, dv.thresholds
    methods = []
    for i in dv.order():
        methods.append(
            {
                "class": visible(m.class_name[i]),
                "name": visible(m.name[i]),
                "signature": visible(m.signature[i]),
                "status": m.status[i],
                "gated": bool(m.gated[i]),
                "on_baseline": bool(m.on_base[i]),
                "on_candidate": bool(m.on_cand[i]),
                "incl": change_json(m.incl, i),
                "excl": change_json(m.excl, i),
                "state": m.state_name(i),
                "calls": change_json(m.calls, i, unit_us=False),
            }
        )
    t = dv.threads
    threads = [
        {
            "name": visible(t.name[i]),
            "on_baseline": bool(t.on_base[i]),
            "on_candidate": bool(t.on_cand[i]),
            "total": change_json(t.total, i),
            "calls": change_json(t.calls, i, unit_us=False),
        }
        for i in range(len(t))
    ]
    c = counts(dv)
    extra: dict[str, Any] = {}
    paths = paths_of(dv)
    if isinstance(dv, Comparison) and paths is not None:
        rows, left_out = path_json(dv, paths, th.min_time_ns)
        extra = {"paths": rows, "paths_left_out": left_out}
    return {
        "clock": dv.clock,
        "baseline": [visible(s) for s in dv.baseline],
        "candidate": [visible(s) for s in dv.candidate],
        "thresholds": {
            "metric": th.metric,
            "fail_above_percent": round(100 * th.fail_above, 6),
            "min_time_us": th.min_time_ns / 1000,
            "confidence_percent": round(100 * th.confidence, 6),
            "methods": [visible(p) for p in th.methods],
        },
        "statistic": {
            "spread": "1.4826 * MAD",
            "test": "one-sided t on the change of medians (pooled robust spread), critical "
            "value: its quantile for normal noise with as many runs",
            "spread_known": dv.spread_known,
            "degrees_of_freedom": dv.dof,
            "critical_t": round(dv.critical, 6) if dv.critical is not None else None,
        },
        "counts": {s: c.get(s, 0) for s in sorted(c)},
        "regressions": [
            {
                "class": visible(m.class_name[i]),
                "name": visible(m.name[i]),
                "signature": visible(m.signature[i]),
            }
            for i in dv.regressions
        ],
        "methods": methods,
        "threads": threads,
        **extra,
        "notes": [visible(n) for n in dv.notes],
    }


def export_json(dv: DiffView, out: IO[Any], options: Options) -> None:
    """`diff --json`: every method and thread compared (docs/json.md)."""
    out.write(dumps(diff_json(dv)) + "\n")


def export_text(dv: DiffView, out: IO[Any], options: Options) -> None:
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


TEXT: Exporter[DiffView] = Exporter(
    "diff", (), False, "comparison of runs as a terminal table", export_text
)
JSON: Exporter[DiffView] = Exporter(
    "diff-json", (), False, "comparison of runs as JSON", export_json
)
