"""The `dmtracedump-events` format, dmtracedump's `-o` dump: the key's version and threads,
then one line per record in file order, `tid action time .....class.method signature`,
indented by the thread's depth (format.md d.3).

As dmtracedump prints it: every thread starts at depth 2, an enter counts before its line
and an exit after it; depths below 0 print as 0 with `-`, above 10000 as 10000 with `+`;
the time is the record's µs on the view's clock (dmtracedump's: the first time field); an id
missing from the key prints `???.??? methodId: 0x…`. Threads and methods outside the view's
thread selection are left out. Names are the trace's bytes, escaped only when they hold a
control character (`model.terminal_bytes`).

Each line repeats the depth's dots (up to 10,000) and its name, so the dump of a deep trace
is large (a 200,000-deep chain: 4 GB); it is written in chunks of about `CHUNK_BYTES`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

import numpy as np

from traceview.analysis.dmtracedump.numbers import legacy_names
from traceview.analysis.view import View
from traceview.model import terminal_bytes

NAME = "dmtracedump-events"
SUFFIXES = (".dmtrace.events",)
BINARY = True
SUBJECT = "view"
MAX_DEPTH = 10000
ACTIONS = (b"ent", b"xit", b"unr", b"???")
CHUNK = 1 << 16  # lines at most per write
CHUNK_BYTES = 1 << 22  # and about this many bytes (one longer line alone)


@dataclass(frozen=True)
class Options:
    """The dump takes no options: every record of the selected threads, in file order."""


def export(view: View, out: IO[bytes], options: Options) -> None:
    """dmtracedump's `-o` record dump of the view."""
    trace = view.trace
    ev = trace.events
    threads = trace.threads
    version = trace.header.key_version or trace.header.version
    out.write(b"VERSION: %d\n" % version)
    named = sorted(
        (int(threads.id[t]), name) for t, name in enumerate(threads.name) if name is not None
    )
    out.write(b"Threads (%d):\n" % len(named))
    for tid, name in named:
        out.write(b"%2d %s\n" % (tid, terminal_bytes(name.encode("utf-8", "surrogateescape"))))
    out.write(b"Trace (threadID action usecs class.method signature):\n")
    rows = np.arange(len(ev))
    if view.query.threads is not None:
        rows = rows[np.isin(ev.thread, np.asarray(view.query.threads))]
    th = ev.thread[rows].astype(np.int64)
    act = ev.action[rows].astype(np.int64)
    step = np.where(act == 0, 1, -1)
    order = np.argsort(th, kind="stable")
    depth = np.empty(len(rows), dtype=np.int64)
    if len(rows):
        s = step[order]
        c = np.cumsum(s)
        t_sorted = th[order]
        starts = np.flatnonzero(np.r_[True, t_sorted[1:] != t_sorted[:-1]])
        group = np.cumsum(np.r_[False, t_sorted[1:] != t_sorted[:-1]])
        c -= (c[starts] - s[starts])[group]
        depth[order] = c
    printed = 2 + depth + (act != 0)  # an exit's line shows the depth before it
    note = np.where(printed < 0, ord("-"), np.where(printed > MAX_DEPTH, ord("+"), ord(" ")))
    printed = np.clip(printed, 0, MAX_DEPTH)
    classes, names, sigs = legacy_names(trace, view.methods)
    labels = []
    declared = trace.methods.declared.tolist()
    for m, mid in enumerate(trace.methods.id.tolist()):
        e = m + 2
        if not declared[m]:
            labels.append(b"???.??? methodId: " + (b"%#x" % mid if mid else b"0"))
        elif names[e] is None:
            labels.append(classes[e])
        else:
            labels.append(classes[e] + b"." + (names[e] or b"") + b" " + sigs[e])
    labels = [terminal_bytes(label) for label in labels]
    tids = threads.id.tolist()
    times = ev.time(view.query.clock)[rows] // 1000
    dots = b"." * MAX_DEPTH
    sizes = np.array([len(label) for label in labels], dtype=np.int64)
    length = np.cumsum(printed + sizes[ev.method[rows]] + 24)  # a line's bytes, about
    bounds = np.searchsorted(
        length, np.arange(CHUNK_BYTES, int(length[-1]) if len(rows) else 0, CHUNK_BYTES)
    )
    cuts = np.unique(np.r_[0, np.arange(CHUNK, len(rows), CHUNK), bounds + 1, len(rows)])
    for at, stop in zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True):
        part = slice(at, stop)
        out.write(
            b"".join(
                b"%2d %s  %8d%c%s%s\n" % (tids[t], ACTIONS[a & 3], tm, n, dots[:d], labels[m])
                for t, a, tm, n, d, m in zip(
                    th[part].tolist(),
                    act[part].tolist(),
                    times[part].tolist(),
                    note[part].tolist(),
                    printed[part].tolist(),
                    ev.method[rows[part]].tolist(),
                    strict=True,
                )
            )
        )
