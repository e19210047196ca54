"""The `anr` exporters: what was slow when an ANR hit (analysis/anr.py) — the dump's process,
each thread's calls open at the dump (the main thread first), then the calls over ART's
threshold with their callers, longest first — as text (`TEXT`) or JSON (`JSON`)."""

from __future__ import annotations

from typing import IO, Any

from traceview.analysis.anr import AnrSummary, Frame, anr_summary
from traceview.analysis.view import View
from traceview.exporters import Exporter, Options
from traceview.exporters.jsonshape import diagnostics_json, dumps
from traceview.exporters.notes import note_lines
from traceview.model import MethodTable, printable, visible

CALLERS_SHOWN = 12  # callers printed under a slow call in the text form


def _summary(view: View, options: Options) -> AnrSummary:
    limit = options.limit if options.limit is not None else 50
    minimum = options.threshold * 1_000_000 if options.threshold is not None else None
    return anr_summary(view.session, limit=limit, minimum_ns=minimum)


def _s(ns: int | None, at_least: bool = False) -> str:
    if ns is None:
        return "-"
    return ("≥" if at_least else "") + f"{ns / 1e9:.3f} s"


def _process(view: View) -> str:
    h = view.trace.header
    if h.process is not None and h.processes:
        dump = h.processes[h.process]
        where = dump.where() + (f", dumped {dump.at}" if dump.at else "")
        return f"process {printable(dump.label())} ({printable(where)})"
    return f"file {printable(str(view.trace.source))}"


def export_text(view: View, out: IO[Any], options: Options) -> None:
    """The summary as text."""
    s = _summary(view, options)
    methods, th = view.methods, view.trace.threads
    lines = [_process(view)]
    if s.timeless:
        lines.append("this dump has no times (all methods: the order of events): stacks only")
    elif s.end_ns is not None:
        lines.append(f"dump at {_s(s.end_ns)} after the first event")
    lines.append("")
    lines.append("open at the dump (outermost first; time open so far):")
    if not s.stacks:
        lines.append("  (no call was open)")
    for t, frames in s.stacks:
        main = " (main)" if t == s.main else ""
        named = f"{printable(name)} " if (name := th.name[t]) is not None else ""
        lines.append(f"  {named}[{int(th.id[t])}]{main}")
        lines.extend(_frame_line(f, depth, methods) for depth, f in enumerate(frames))
    if not s.timeless:
        lines.append("")
        shown = f", the {len(s.slow)} longest" if len(s.slow) < s.slow_total else ""
        lines.append(f"calls of {_s(s.threshold_ns)} or more: {s.slow_total}{shown}")
        for call in s.slow:
            name = printable(methods.label(call.method))
            thread = printable(th.label(call.thread))
            lines.append(f"  {_s(call.ns, call.at_least):>11}  {thread}  {name}")
            for m in call.callers[:CALLERS_SHOWN]:
                lines.append(f"{'':>15}at {printable(methods.label(m))}")
            if len(call.callers) > CALLERS_SHOWN:
                lines.append(f"{'':>15}... {len(call.callers) - CALLERS_SHOWN} more callers")
    out.write("\n".join(lines) + "\n")
    out.write(note_lines(view.diagnostics()))


def _frame_line(f: Frame, depth: int, methods: MethodTable) -> str:
    return f"  {_s(f.ns, f.at_least):>11}  {'  ' * depth}{printable(methods.label(f.method))}"


def export_json(view: View, out: IO[Any], options: Options) -> None:
    """The summary as one JSON object (times in µs, null without times)."""
    out.write(dumps(summary_json(view, options)) + "\n")


def summary_json(view: View, options: Options) -> dict[str, Any]:
    """`anr --json` and the viewer's /api/anr (docs/json.md)."""
    s = _summary(view, options)
    methods, th = view.methods, view.trace.threads

    def us(ns: int | None) -> float | None:
        return None if ns is None else ns / 1000

    def name(m: int) -> str:
        return visible(methods.label(m))

    h = view.trace.header
    dump = h.processes[h.process] if h.process is not None and h.processes else None
    doc = {
        "file": visible(view.trace.source) if view.trace.source else None,
        "process": {"name": visible(dump.name or ""), "pid": dump.pid} if dump else None,
        "times": not s.timeless,
        "dump_us": us(s.end_ns),
        "threshold_us": us(s.threshold_ns),
        "open": [
            {
                "thread": {"id": int(th.id[t]), "name": visible(th.label(t)), "main": t == s.main},
                "frames": [
                    {"method": name(f.method), "open_us": us(f.ns), "at_least": f.at_least}
                    for f in frames
                ],
            }
            for t, frames in s.stacks
        ],
        "slow_total": s.slow_total,
        "slow": [
            {
                "thread": {"id": int(th.id[c.thread]), "name": visible(th.label(c.thread))},
                "method": name(c.method),
                "start_us": us(c.start_ns),
                "duration_us": us(c.ns),
                "at_least": c.at_least,
                "callers": [name(m) for m in c.callers],
            }
            for c in s.slow
        ],
        "diagnostics": diagnostics_json(view.diagnostics()),
    }
    return doc


TEXT = Exporter("anr", (), False, "what was open and slow when an ANR hit", export_text)
JSON = Exporter("anr-json", (), False, "the same as one JSON object", export_json)
