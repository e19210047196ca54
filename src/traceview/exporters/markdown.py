"""The `diff-markdown` format: a comparison of runs (`analysis.diff.DiffView`) as GitHub
flavoured Markdown, for a pull-request comment or a CI job summary (`$GITHUB_STEP_SUMMARY`).
Names are escaped for a table cell: control characters via `model.printable`, then the
characters Markdown gives a meaning (`|`, backticks, emphasis, links, HTML `<`)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import IO, Any

from traceview.analysis.compare import Comparison
from traceview.analysis.diff import DiffView
from traceview.exporters.diff import METRIC_WORDS, gate_text, ms, percent, shown_rows, summary
from traceview.exporters.diffpaths import changed_paths, path_lines, paths_of
from traceview.model import printable

NAME = "diff-markdown"
SUFFIXES = (".md",)
BINARY = False
SUBJECT = "runs"

_SPECIAL = re.compile(r"([\\`*_\[\]|~#!$])")  # `$` opens math on GitHub


@dataclass(frozen=True)
class Options:
    """`limit`: rows of the methods table (None: `diff.DEFAULT_LIMIT`, 0: all)."""

    limit: int | None = None


def md(text: str) -> str:
    """`text` safe in a Markdown table cell: one line, no markup, no HTML."""
    out = _SPECIAL.sub(r"\\\1", printable(text))
    return out.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def export(dv: DiffView, out: IO[Any], options: Options) -> None:
    """`diff --markdown`: a heading with the verdict, the gate, the methods table, the
    threads table."""
    m, metric = dv.methods, dv.thresholds.metric
    n_reg = len(dv.regressions)
    head = f"{n_reg} regression{'s' if n_reg != 1 else ''}" if n_reg else "no regression"
    w = METRIC_WORDS[metric]
    lines = [
        f"### traceview diff: {head}",
        "",
        f"{len(dv.baseline)} baseline run(s) vs {len(dv.candidate)} candidate run(s), "
        f"{dv.clock} clock; {md(gate_text(dv))}.",
        "",
        f"**{md(summary(dv))}**",
        "",
    ]
    rows, more = shown_rows(dv, options.limit)
    if rows:
        lines += [
            f"| Status | Method | Baseline {w} ms | Candidate {w} ms | Change | t | Calls |",
            "|---|---|--:|--:|--:|--:|--:|",
        ]
        ch = m.change(metric)
        for i in rows:
            status = f"**{m.status[i]}**" if m.status[i] == "regression" else m.status[i]
            t = f"{float(ch.t[i]):.1f}" if ch.known and math.isfinite(ch.t[i]) else "-"
            rel = percent(float(ch.rel[i]), bool(m.on_base[i]))
            change = f"{float(ch.delta[i]) / 1e6:+,.3f} ms ({rel})"
            name = md(f"{m.full_name(i)} {m.signature[i]}")
            calls = f"{m.calls.base[i]:g} → {m.calls.cand[i]:g}"
            lines.append(
                f"| {status} | {name} | {ms(ch.base[i])} | {ms(ch.cand[i])} | {change} "
                f"| {t} | {calls} |"
            )
        if more:
            lines += ["", f"{more} more rows (`--limit 0` shows all)."]
        lines.append("")
    lines += _paths(dv, options.limit)
    th = dv.threads
    if len(th):
        lines += [
            "<details><summary>Threads</summary>",
            "",
            "| Thread | Baseline ms | Candidate ms | Change | Calls |",
            "|---|--:|--:|--:|--:|",
        ]
        for i in range(len(th)):
            tot = th.total
            rel = percent(float(tot.rel[i]), bool(th.on_base[i]))
            lines.append(
                f"| {md(th.name[i])} | {ms(tot.base[i])} | {ms(tot.cand[i])} "
                f"| {rel} | {th.calls.base[i]:g} → {th.calls.cand[i]:g} |"
            )
        lines += ["", "</details>", ""]
    for note in dv.notes:
        lines += [f"> {md(note)}", ""]
    out.write("\n".join(lines))


def _paths(dv: DiffView, limit: int | None) -> list[str]:
    """The changed call paths, largest change first: where in the call tree time moved."""
    paths = paths_of(dv)
    if not isinstance(dv, Comparison) or paths is None:
        return []
    rows, more = changed_paths(dv, paths, limit)
    if not rows:
        return ["No call path changed beyond the thresholds.", ""]
    metric = dv.thresholds.metric
    w = METRIC_WORDS[metric]
    ch = paths.change(metric)
    lines = [
        f"#### Where in the call tree ({w} time per call path)",
        "",
        f"| State | Call path | Baseline {w} ms | Candidate {w} ms | Change | t | Inclusive ms |",
        "|---|---|--:|--:|--:|--:|--:|",
    ]
    for i, text in zip(rows, path_lines(dv, paths, rows), strict=True):
        word = paths.state_name(i)
        state = f"**{word}**" if word in ("slower", "new") else word
        t = f"{float(ch.t[i]):.1f}" if ch.known and math.isfinite(ch.t[i]) else "-"
        rel = percent(float(ch.rel[i]), bool(paths.on_base[i]))
        change = f"{float(ch.delta[i]) / 1e6:+,.3f} ms ({rel})"
        incl = f"{ms(paths.incl.base[i])} → {ms(paths.incl.cand[i])}"
        lines.append(
            f"| {state} | {md(text)} | {ms(ch.base[i])} | {ms(ch.cand[i])} | {change} | {t} "
            f"| {incl} |"
        )
    if more:
        lines += ["", f"{more} more paths (`--limit 0` shows all)."]
    return [*lines, ""]
