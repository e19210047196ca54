"""The `chrome` exporter: Chrome's Trace Event Format (JSON object form), which Perfetto UI,
chrome://tracing and speedscope open.

One complete event (`"ph": "X"`) per call of the selection, on one track per thread (`pid` the
trace's process id, `tid` the thread id), `ts`/`dur` in µs (three decimals: exact ns) on the
query's clock from the trace's start, clipped to the time range; `args` carries the call's
inclusive time on every clock the trace records (`cpu_us`, `wall_us`). Metadata events name the
process and the threads. The file is written in chunks as it is built (no list of every
event in memory).
"""

from __future__ import annotations

import json
from typing import IO, Any

from traceview.analysis.view import View
from traceview.exporters import Exporter, Options
from traceview.exporters.stacks import frame_names, origins, thread_calls
from traceview.model import visible

CHUNK = 1 << 16  # calls formatted per write


def _meta(name: str, pid: int, tid: int | None, args: dict[str, Any]) -> str:
    event: dict[str, Any] = {"ph": "M", "name": name, "pid": pid}
    if tid is not None:
        event["tid"] = tid
    event["args"] = args
    return json.dumps(event, ensure_ascii=False)


def export_chrome(view: View, out: IO[Any], options: Options) -> None:
    """`{"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}`, streamed."""
    trace = view.trace
    q = view.query
    pid = int(trace.header.pid) if trace.header.pid is not None else 1
    names = [json.dumps(n, ensure_ascii=False) for n in frame_names(view)]
    clocks = view.session.clocks
    zero = origins(view)
    other = {
        "producer": "traceview",
        "clock": q.clock,
        "clocks": list(clocks),
        "sampled": bool(trace.header.sampled),
    }
    out.write('{"displayTimeUnit":"ns","otherData":')
    out.write(json.dumps(other))
    out.write(',"traceEvents":[\n')
    th = trace.threads
    process = visible(options.title or "app")
    out.write(_meta("process_name", pid, None, {"name": process}))
    for part in thread_calls(view):
        t = part.thread
        tid = int(th.id[t])
        out.write(",\n" + _meta("thread_name", pid, tid, {"name": visible(th.label(t))}))
        out.write(",\n" + _meta("thread_sort_index", pid, tid, {"sort_index": t}))
        head = f',\n{{"ph":"X","pid":{pid},"tid":{tid},"ts":'
        for lo in range(0, len(part), CHUNK):
            sl = slice(lo, lo + CHUNK)
            start = part.start[q.clock][sl]
            ts = ((start - zero[q.clock]) / 1000).tolist()
            dur = ((part.end[q.clock][sl] - start) / 1000).tolist()
            meth = part.method[sl].tolist()
            durs = [((part.end[c][sl] - part.start[c][sl]) / 1000).tolist() for c in clocks]
            if len(clocks) == 2:
                a, b = durs
                lines = [
                    f'{head}{s:.3f},"dur":{d:.3f},"name":{names[m]},'
                    f'"args":{{"cpu_us":{x:.3f},"wall_us":{y:.3f}}}}}'
                    for s, d, m, x, y in zip(ts, dur, meth, a, b, strict=True)
                ]
            else:
                key = f"{clocks[0]}_us"
                lines = [
                    f'{head}{s:.3f},"dur":{d:.3f},"name":{names[m]},"args":{{"{key}":{d:.3f}}}}}'
                    for s, d, m in zip(ts, dur, meth, strict=True)
                ]
            out.write("".join(lines))
    out.write("\n]}\n")


CHROME = Exporter(
    "chrome",
    (".chrome.json", ".json"),
    False,
    "Chrome Trace Event JSON (Perfetto UI, chrome://tracing): one event per call",
    export_chrome,
)

__all__ = ["CHROME"]
