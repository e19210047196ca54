"""The `anr` format: what was slow when an ANR hit (analysis/anr.py) — the dump's process, each
thread's calls still running at the dump (the main thread first; their times "≥": they had not
ended), then the calls over ART's threshold with their callers, longest first — as text, times
from the trace's start or on CLOCK_MONOTONIC (`--time`); `exporters/anr_json.py` writes JSON."""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Any

from traceview.analysis.anr import AnrSummary, anr_summary
from traceview.analysis.timebase import monotonic_text
from traceview.analysis.view import View
from traceview.exporters.notes import note_lines
from traceview.model import printable

NAME = "anr"
SUFFIXES: tuple[str, ...] = ()
BINARY = False
SUBJECT = "view"
CALLERS_SHOWN = 12  # callers printed under a slow call
MONOTONIC = "times on CLOCK_MONOTONIC (s since boot, as logcat -v monotonic and Perfetto show them)"
OPEN_HEAD = (
    "still running at the dump (open: ≥ the time each had run by then, from when it began; "
    "outermost first):"
)


@dataclass(frozen=True)
class Options:
    """`limit`: the slow calls listed; `min_ms`: list calls of at least this many ms instead
    of ART's threshold."""

    limit: int = 50
    min_ms: int | None = None


def summarise(view: View, limit: int, min_ms: int | None) -> AnrSummary:
    """The analysis the text and JSON forms show."""
    minimum = min_ms * 1_000_000 if min_ms is not None else None
    return anr_summary(view.session, limit=limit, minimum_ns=minimum)


def _s(ns: int | None, at_least: bool = False) -> str:
    if ns is None:
        return "-"
    return ("≥" if at_least else "") + f"{ns / 1e9:.3f} s"


class Points:
    """Points in time as the query's time base shows them: seconds from the trace's start, or
    every ns digit of CLOCK_MONOTONIC (`monotonic_text`)."""

    def __init__(self, s: AnrSummary, time: str) -> None:
        self.s, self.mono = s, time == "monotonic" and s.shift is not None

    def text(self, ns: int | None, before: bool = False) -> str:
        """`ns` on the axis as text; `before`: the call began at this point or earlier."""
        if ns is None:
            return "-"
        mark = "≤" if before else ""
        if self.mono:
            return mark + monotonic_text(self.s.monotonic(ns) or 0)
        return mark + f"{(self.s.since(ns) or 0) / 1e9:.3f} s"


def _process(view: View) -> str:
    h = view.trace.header
    if h.process is not None and h.processes:
        dump = h.processes[h.process]
        where = dump.where() + (f", dumped {dump.at}" if dump.at else "")
        return f"process {printable(dump.label())} ({printable(where)})"
    return f"file {printable(str(view.trace.source))}"


def export(view: View, out: IO[Any], options: Options) -> None:
    """The summary as text."""
    s = summarise(view, options.limit, options.min_ms)
    methods, th = view.methods, view.trace.threads
    at = Points(s, view.query.time)
    lines = [_process(view)]
    if s.timeless:
        lines.append("this dump has no times (all methods: the order of events): stacks only")
    elif at.mono:
        lines.append(MONOTONIC)
        if s.end_ns is not None:
            lines.append(f"dump at {at.text(s.end_ns)}")
    elif s.end_ns is not None:
        lines.append(f"dump at {at.text(s.end_ns)} after the first event")
    if not s.timeless and s.clock != "wall":
        lines.append(f"this trace has no wall clock: times are on its {s.clock} clock")
    starts = [at.text(f.start_ns, f.before_tracing) for _, fs in s.stacks for f in fs]
    starts += [at.text(c.start_ns, c.at_least) for c in s.slow]
    width = max((len(x) for x in starts), default=0)
    lines.append("")
    lines.append(OPEN_HEAD if not s.timeless else "open at the dump (outermost first):")
    if not s.stacks:
        lines.append("  (no call was open)")
    for t, frames in s.stacks:
        main = " (main)" if t == s.main else ""
        named = f"{printable(name)} " if (name := th.name[t]) is not None else ""
        lines.append(f"  {named}[{int(th.id[t])}]{main}")
        for depth, f in enumerate(frames):
            since = "" if s.timeless else f"from {at.text(f.start_ns, f.before_tracing):>{width}}  "
            label = printable(methods.label(f.method))
            lines.append(f"  {_s(f.ns, f.at_least):>11}  {since}{'  ' * depth}{label}")
    if not s.timeless:
        lines.append("")
        shown = f", the {len(s.slow)} longest" if len(s.slow) < s.slow_total else ""
        lines.append(f"calls of {_s(s.threshold_ns)} or more: {s.slow_total}{shown}")
        for call in s.slow:
            name = printable(methods.label(call.method))
            thread = printable(th.label(call.thread))
            start = at.text(call.start_ns, call.at_least)
            lines.append(
                f"  {_s(call.ns, call.at_least):>11}  from {start:>{width}}  {thread}  {name}"
            )
            for m in call.callers[:CALLERS_SHOWN]:
                lines.append(f"{'':>15}at {printable(methods.label(m))}")
            if len(call.callers) > CALLERS_SHOWN:
                lines.append(f"{'':>15}... {len(call.callers) - CALLERS_SHOWN} more callers")
    out.write("\n".join(lines) + "\n")
    out.write(note_lines(view.diagnostics()))
