"""`traceview info TRACE [--json]`: what a trace file is and what the reader repaired.

Prints the variant, version, clock, VM, pid, start time, duration, record count, threads with
their record counts, methods declared and used, every option of the key section, and the
diagnostics. `--json` prints the same as one object.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from traceview.model import Trace
from traceview.readers import load


def summary(trace: Trace) -> dict[str, object]:
    """The facts `info` shows, as a JSON-ready dict."""
    h, ev = trace.header, trace.events
    per_thread = np.bincount(ev.thread, minlength=len(trace.threads))
    threads = [
        {
            "id": int(trace.threads.id[row]),
            "name": trace.threads.name[row],
            "records": int(per_thread[row]),
        }
        for row in range(len(trace.threads))
    ]
    used = len(np.unique(ev.method))
    return {
        "file": trace.source,
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
        "threads": threads,
        "methods": {
            "declared": int(np.count_nonzero(trace.methods.declared)),
            "undeclared": int(np.count_nonzero(~trace.methods.declared)),
            "used": used,
        },
        "options": dict(h.options),
        "diagnostics": [d.to_json() for d in trace.diagnostics],
    }


def _duration_us(trace: Trace) -> float | None:
    """Span of the trace on its wall clock (CPU clock when there is no wall clock)."""
    ev = trace.events
    if not len(ev):
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
    lines = [f"file        {info['file']}"]
    version = info["version"]
    assert isinstance(version, int)
    lines.append(f"variant     {info['variant']} (version {version} = {version:#x})")
    for key in ("clock", "vm", "pid", "start_time_us", "records", "record_size", "overflow"):
        lines.append(f"{key.replace('_', ' '):<11} {info[key]}")
    lines.append(f"duration    {_fmt_us(info['duration_us'])}")  # type: ignore[arg-type]
    if info["sampled"]:
        interval = info["sampling_interval_us"]
        lines.append(f"sampled     yes, interval ~{interval} µs: numbers are estimates")
    if info["entry_format"]:
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
        lines.append(f"  {t['id']:>8}  {t['records']:>10}  {name}")
    options = info["options"]
    assert isinstance(options, dict)
    lines.append("options")
    lines.extend(f"  {k}={v}" for k, v in options.items())
    diagnostics = info["diagnostics"]
    assert isinstance(diagnostics, list)
    lines.append(f"diagnostics {len(diagnostics) or 'none'}")
    for d in diagnostics:
        where = f" (at byte {d['offset']})" if d["offset"] is not None else ""
        lines.append(f"  {d['code']}: {d['message']}{where}")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    """Run `traceview info`."""
    parser = argparse.ArgumentParser(prog="traceview info", description=__doc__)
    parser.add_argument("trace", help="a .trace file (any variant, gzip ok), or a .key/.data base")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    info = summary(load(args.trace))
    if args.json:
        json.dump(info, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_text(info))
    return 0
