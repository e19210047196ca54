"""Golden summaries of the corpus traces: a small readable text per file (variant, counts, top
methods on both clocks, diagnostics, or the one-line refusal), compared in
tests/test_golden.py; `pytest --update-golden` rewrites them, so a change in numbers shows as a
diff of tests/golden/. Every trace summarised passes `validate()`, as do its call table and the
profile summarised (an AssertionError names the broken invariant)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import traceview
from traceview.analysis import Session
from traceview.model import Trace, printable

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
TOP = 8


def summary(path: Path, name: str) -> str:
    """The summary of one corpus file (`name`: its path inside the corpus)."""
    lines = [f"file {name}"]
    try:
        trace = traceview.load(path)
    except traceview.TraceError as exc:
        text = str(exc).splitlines()[0].replace(str(path), name)
        return "\n".join([*lines, f"refused: {printable(text)}"]) + "\n"
    return "\n".join([*lines, *describe(trace)]) + "\n"


def describe(trace: Trace) -> list[str]:
    """The summary lines of a loaded trace; its tables, call table and profile validated."""
    trace.validate()
    lines: list[str] = []
    s = Session(trace)
    h = trace.header
    ev = trace.events
    lines.append(f"variant {h.variant} version {h.version:#x} clock {h.clock}")
    lines.append(f"sampled {h.sampled} overflow {h.overflow}")
    used = len(np.unique(ev.method))
    lines.append(f"records {len(ev)} threads {len(trace.threads)} methods {len(trace.methods)}")
    lines.append(f"methods used {used} undeclared {int((~trace.methods.declared).sum())}")
    lines.append(f"main thread {printable(trace.threads.label(s.main_thread()))}")
    prof = s.profile(s.query())
    for clock in prof.clocks:
        lines.append(f"total {clock} {prof.total(clock) / 1000:.3f} us")
        lines.append(f"top {clock} (incl us, excl us, calls):")
        for m in prof.used(clock)[:TOP].tolist():
            incl, excl = int(prof.incl[clock][m]) / 1000, int(prof.excl[clock][m]) / 1000
            n = f"{int(prof.calls[m])}+{int(prof.recursive_calls[m])}"
            label = printable(trace.methods.label(m))
            lines.append(f"  {incl:.3f} {excl:.3f} {n} {label}")
    lines.append("diagnostics:")
    for d in s.diagnostics():
        count = f" ({d.count})" if d.count is not None else ""
        lines.append(f"  {d.code}{count}")
    prof.validate()
    s.calls.validate()  # built last: the summary reads the session as the viewer first does
    return lines


def golden_path(name: str) -> Path:
    """Where the summary of corpus file `name` is kept."""
    return GOLDEN / (name.replace("/", "__") + ".txt")
