"""The `info` format: what a trace file is and what the reader and the engine repaired —
variant, version, clock, VM, pid, start, duration, records, the sampled event types (a
simpleperf recording), threads with their record counts, methods declared and used, every
option of the key section, an Android 16 dump's axis, end and monotonic offset and the
processes of an ANR report, diagnostics — as aligned text (`summary` holds the facts;
`exporters/info_json.py` writes them as JSON)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Any

import numpy as np

from traceview.analysis.view import View
from traceview.exporters.jsonshape import diagnostics_json
from traceview.model import ProcessDump, Trace, printable, visible

NAME = "info"
SUFFIXES: tuple[str, ...] = ()
BINARY = False
SUBJECT = "view"


@dataclass(frozen=True)
class Options:
    """`info` takes no options: it shows every fact."""


def summary(view: View) -> dict[str, object]:
    """The facts `info` shows, as a JSON-ready dict (docs/json.md)."""
    trace = view.trace
    h, ev = trace.header, trace.events
    per_thread = view.session.thread_records
    threads = [
        {
            "id": int(trace.threads.id[row]),
            "name": visible(name) if (name := trace.threads.name[row]) is not None else None,
            "records": int(per_thread[row]),
        }
        for row in range(len(trace.threads))
    ]
    used = len(np.unique(ev.method))
    return {
        "file": visible(trace.source) if trace.source is not None else None,
        "variant": h.variant,
        "version": h.version,
        "key_version": h.key_version,
        "clock": h.clock,
        "clocks": list(trace.clocks),
        "vm": h.vm,
        "pid": h.pid,
        "start_time_us": h.start_time_us,
        "duration_us": _duration_us(trace),
        "elapsed_us": h.elapsed_ns / 1000 if h.elapsed_ns is not None else None,
        "records": len(ev),
        "record_size": h.record_size,
        "overflow": h.overflow,
        "sampled": h.sampled,
        "sampling_interval_us": h.sampling_interval_us,
        "entry_format": h.entry_format,
        "event_types": [visible(e) for e in h.event_types],
        "threads": threads,
        "methods": {
            "declared": int(np.count_nonzero(trace.methods.declared)),
            "undeclared": int(np.count_nonzero(~trace.methods.declared)),
            "used": used,
        },
        "options": {visible(k): visible(v) for k, v in h.options.items()},
        "axis": h.axis,
        "end_ns": h.end_ns,
        "monotonic_offset_ns": h.monotonic_offset_ns,
        "processes": [_process_json(d, i == h.process) for i, d in enumerate(h.processes)],
        "diagnostics": diagnostics_json(view.diagnostics()),
    }


def _process_json(dump: ProcessDump, read: bool) -> dict[str, object]:
    """One dump of an ANR report, as `info` lists it."""
    return {
        "name": visible(dump.name) if dump.name is not None else None,
        "pid": dump.pid,
        "at": visible(dump.at) if dump.at is not None else None,
        "where": visible(dump.where()),
        "bytes": dump.size,
        "also_in": [visible(w) for w in dump.also_in],
        "read": read,
    }


def _duration_us(trace: Trace) -> float | None:
    """Span of the trace on its wall clock (CPU clock when there is no wall clock)."""
    ev = trace.events
    if not len(ev) or trace.header.axis == "order":  # no times: no duration
        return None
    col = ev.wall if ev.wall is not None else ev.cpu
    assert col is not None
    return float(col.max() - col.min()) / 1000


def _fmt_us(value: float | None) -> str:
    if value is None:
        return "-"
    if value >= 1_000_000:
        return f"{value / 1_000_000:.3f} s"
    if value >= 1000:
        return f"{value / 1000:.3f} ms"
    return f"{value:.0f} µs"


def render_text(info: dict[str, object]) -> str:
    """The human-readable form of `summary()`."""
    lines = [f"file        {printable(str(info['file']))}"]
    version = info["version"]
    assert isinstance(version, int)
    if info["variant"] == "low-overhead":  # no header, no version: the dump's mode instead
        lines.append(f"variant     low-overhead ({info['entry_format']} methods dump)")
    else:
        lines.append(f"variant     {info['variant']} (version {version} = {version:#x})")
    for key in ("clock", "vm", "pid", "start_time_us", "records", "record_size", "overflow"):
        lines.append(f"{key.replace('_', ' '):<11} {printable(str(info[key]))}")
    lines.append(f"duration    {_fmt_us(info['duration_us'])}")  # type: ignore[arg-type]
    lines.extend(_dump_lines(info))
    if info["sampled"]:
        interval = info["sampling_interval_us"]
        lines.append(f"sampled     yes, interval ~{interval} µs: numbers are estimates")
    events = info["event_types"]
    if events:
        assert isinstance(events, list)
        lines.append(f"events      {printable(', '.join(events))} (simpleperf event types)")
    if info["entry_format"] and info["variant"] != "low-overhead":
        lines.append(f"V2 entries  {info['entry_format']}")
    methods = info["methods"]
    assert isinstance(methods, dict)
    lines.append(
        f"methods     {methods['declared']} declared, {methods['used']} used, "
        f"{methods['undeclared']} undeclared"
    )
    threads = info["threads"]
    assert isinstance(threads, list)
    lines.append(f"threads     {len(threads)}")
    for t in threads:
        name = t["name"] if t["name"] is not None else f"[{t['id']}]"
        lines.append(f"  {t['id']:>8}  {t['records']:>10}  {printable(name)}")
    options = info["options"]
    assert isinstance(options, dict)
    lines.append("options")
    lines.extend(f"  {printable(k)}={printable(v)}" for k, v in options.items())
    diagnostics = info["diagnostics"]
    assert isinstance(diagnostics, list)
    lines.append(f"diagnostics {len(diagnostics) or 'none'}")
    for d in diagnostics:
        where = f" (at byte {d['offset']})" if d["offset"] is not None else ""
        count = f" ({d['count']})" if d["count"] is not None else ""
        lines.append(f"  {d['code']}{count}: {printable(d['message'])}{where}")
    return "\n".join(lines) + "\n"


def _dump_lines(info: dict[str, object]) -> list[str]:
    """The lines of an Android 16 dump: its axis, the dump's end and the monotonic offset,
    and the processes of an ANR report."""
    lines = []
    if info["axis"] == "order":
        lines.append("axis        order of events — this file has no times")
    end, offset = info["end_ns"], info["monotonic_offset_ns"]
    if isinstance(end, int):
        lines.append(f"dump end    {_fmt_us(end / 1000)} after the first event")
    if isinstance(offset, int):
        mono = f" (the dump at {(end + offset) / 1e9:.6f} s)" if isinstance(end, int) else ""
        lines.append(f"monotonic   times + {offset:,} ns = CLOCK_MONOTONIC{mono}")
    processes = info["processes"]
    assert isinstance(processes, list)
    if processes:
        lines.append(f"processes   {len(processes)} dump(s) in this report (--process NAME|PID)")
    for p in processes:
        mark = "*" if p["read"] else " "
        name = printable(str(p["name"])) if p["name"] is not None else "(unnamed)"
        also = f", also {printable(', '.join(p['also_in']))}" if p["also_in"] else ""
        at = f", {printable(str(p['at']))}" if p["at"] else ""
        lines.append(f"  {mark} {p['pid']!s:>8}  {name}  ({printable(p['where'])}{at}{also})")
    return lines


def export(view: View, out: IO[Any], options: Options) -> None:
    """The facts as aligned text."""
    out.write(render_text(summary(view)))
