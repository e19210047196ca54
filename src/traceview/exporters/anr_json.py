"""The `anr-json` format: what was slow when an ANR hit (`exporters/anr.py`'s facts) as one JSON
object (docs/json.md); the viewer's /api/anr answers the same object."""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Any

from traceview.analysis.view import View
from traceview.exporters.anr import summarise
from traceview.exporters.jsonshape import diagnostics_json, dumps
from traceview.model import visible

NAME = "anr-json"
SUFFIXES: tuple[str, ...] = ()
BINARY = False
SUBJECT = "view"


@dataclass(frozen=True)
class Options:
    """As `anr`'s: `limit` slow calls, `min_ms` instead of ART's threshold."""

    limit: int = 50
    min_ms: int | None = None


def export(view: View, out: IO[Any], options: Options) -> None:
    """The summary as one JSON object (times in µs from the trace's start, CLOCK_MONOTONIC in
    ns when the trace gives the anchor; null without times)."""
    out.write(dumps(summary_json(view, options.limit, options.min_ms)) + "\n")


def summary_json(view: View, limit: int = 50, min_ms: int | None = None) -> dict[str, Any]:
    """`anr --json` and the viewer's /api/anr (docs/json.md)."""
    s = summarise(view, limit, min_ms)
    methods, th = view.methods, view.trace.threads

    def us(ns: int | None) -> float | None:
        return None if ns is None else ns / 1000

    def since(ns: int) -> float | None:
        return None if s.timeless else us(s.since(ns))

    def mono(ns: int | None) -> int | None:
        return None if s.timeless else s.monotonic(ns)

    def name(m: int) -> str:
        return visible(methods.label(m))

    h = view.trace.header
    dump = h.processes[h.process] if h.process is not None and h.processes else None
    return {
        "file": visible(view.trace.source) if view.trace.source else None,
        "process": {"name": visible(dump.name or ""), "pid": dump.pid} if dump else None,
        "times": not s.timeless,
        "clock": s.clock,
        "time": view.query.time,
        "dump_us": us(s.since(s.end_ns)),
        "dump_monotonic_ns": mono(s.end_ns),
        "threshold_us": us(s.threshold_ns),
        "open": [
            {
                "thread": {"id": int(th.id[t]), "name": visible(th.label(t)), "main": t == s.main},
                "frames": [
                    {
                        "method": name(f.method),
                        "open": True,
                        "start_us": since(f.start_ns),
                        "start_monotonic_ns": mono(f.start_ns),
                        "before_tracing": f.before_tracing,
                        "open_us": us(f.ns),
                        "at_least": f.at_least,
                    }
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
                "start_us": us(s.since(c.start_ns)),
                "start_monotonic_ns": mono(c.start_ns),
                "duration_us": us(c.ns),
                "at_least": c.at_least,
                "callers": [name(m) for m in c.callers],
            }
            for c in s.slow
        ],
        "diagnostics": diagnostics_json(view.diagnostics()),
    }
