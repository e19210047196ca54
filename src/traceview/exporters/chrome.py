"""The `chrome` format: Chrome's Trace Event Format (JSON object form), which Perfetto UI,
chrome://tracing and speedscope open.

One complete event (`"ph": "X"`) per call of the selection, on one track per thread (`pid` the
trace's process id, `tid` the thread id), `ts`/`dur` in µs (three decimals: exact ns) on the
query's clock from the trace's start, clipped to the time range; `args` carries the call's
inclusive time on every clock the trace records (`cpu_us`, `wall_us`). Metadata events name the
process and the threads. The events are formatted by a compiled kernel (`jsonbytes`), chunk
by chunk on the worker threads, and written as they are built (never every event in memory).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.view import View
from traceview.exporters.stacks import ThreadCalls, frame_names, origins, thread_calls
from traceview.model import visible

NAME = "chrome"
SUFFIXES = (".chrome.json", ".json")
BINARY = False
SUBJECT = "view"


@dataclass(frozen=True)
class Options:
    """`title`: the process's name on its track (default "app")."""

    title: str | None = None


I64 = npt.NDArray[np.int64]


def _meta(name: str, pid: int, tid: int | None, args: dict[str, Any]) -> str:
    event: dict[str, Any] = {"ph": "M", "name": name, "pid": pid}
    if tid is not None:
        event["tid"] = tid
    event["args"] = args
    return json.dumps(event, ensure_ascii=False)


def export(view: View, out: IO[Any], options: Options) -> None:
    """`{"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}`, streamed."""
    from traceview.analysis.kernels import jsonbytes  # numba: paid only by the formats using it

    trace = view.trace
    clock = view.query.clock
    pid = int(trace.header.pid) if trace.header.pid is not None else 1
    clocks = view.session.clocks
    zero = origins(view)[clock]
    other = {
        "producer": "traceview",
        "clock": clock,
        "clocks": list(clocks),
        "sampled": bool(trace.header.sampled),
    }
    out.write('{"displayTimeUnit":"ns","otherData":')
    out.write(json.dumps(other))
    out.write(',"traceEvents":[\n')
    th = trace.threads
    process = visible(options.title or "app")
    out.write(_meta("process_name", pid, None, {"name": process}))
    # ts, dur, name, then the inclusive time on each clock
    args = [f',"args":{{"{clocks[0]}_us":'.encode()]
    args += [f',"{c}_us":'.encode() for c in clocks[1:]]
    M, T = jsonbytes.MICROS, jsonbytes.TEXT
    names = (json.dumps(n, ensure_ascii=False).encode() for n in frame_names(view))
    rest = [b',"dur":', b',"name":', *args, b"}}"]
    template = jsonbytes.Template([b"", *rest], [M, M, T] + [M] * len(clocks), names)
    buffers = jsonbytes.Buffers()
    for part in thread_calls(view):
        t = part.thread
        tid = int(th.id[t])
        out.write(",\n" + _meta("thread_name", pid, tid, {"name": visible(th.label(t))}))
        out.write(",\n" + _meta("thread_sort_index", pid, tid, {"sort_index": t}))
        head = f',\n{{"ph":"X","pid":{pid},"tid":{tid},"ts":'.encode()
        events = template.with_pieces([head, *rest])

        def columns(lo: int, hi: int, part: ThreadCalls = part) -> I64:
            sl = slice(lo, hi)
            cols = np.empty((3 + len(clocks), hi - lo), dtype=np.int64)
            for k, c in enumerate(clocks):
                start = part.spans.start(c, sl)
                np.subtract(part.spans.end(c, sl), start, out=cols[3 + k])
                if c == clock:
                    np.subtract(start, zero, out=cols[0])
                    cols[1] = cols[3 + k]
            cols[2] = part.method[sl]
            return cols

        write = jsonbytes.byte_writer(out)
        for chunk in jsonbytes.formatted(events, columns, len(part), buffers=buffers):
            write(chunk)
    out.write("\n]}\n")


__all__ = ["Options", "export"]
