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

import numpy as np
import numpy.typing as npt

from traceview.analysis.view import View
from traceview.exporters import Exporter, Options
from traceview.exporters.stacks import frame_names, origins, thread_calls
from traceview.model import visible

CHUNK = 1 << 16  # calls formatted per write
_FRAC = [f"{i:03d}" for i in range(1000)]  # ns of a µs as three decimals


def _split(ns: npt.NDArray[np.int64]) -> tuple[list[int], list[int]]:
    """Whole µs and the ns left over (integers format twice as fast as floats with .3f)."""
    whole, frac = np.divmod(ns, 1000)
    return whole.tolist(), frac.tolist()


def _micros(ns: npt.NDArray[np.int64]) -> list[str]:
    """ns as µs text with three decimals (exact)."""
    whole, frac = _split(ns)
    return [f"{w}.{_FRAC[f]}" for w, f in zip(whole, frac, strict=True)]


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
            ts_us, ts_ns = _split(start - zero[q.clock])
            meth = part.method[sl].tolist()
            durs = [_micros(part.end[c][sl] - part.start[c][sl]) for c in clocks]
            dur = durs[clocks.index(q.clock)]
            if len(clocks) == 2:
                args = [f'"cpu_us":{x},"wall_us":{y}' for x, y in zip(*durs, strict=True)]
            else:
                args = [f'"{clocks[0]}_us":{x}' for x in durs[0]]
            lines = [
                f'{head}{s}.{_FRAC[f]},"dur":{d},"name":{names[m]},"args":{{{a}}}}}'
                for s, f, d, m, a in zip(ts_us, ts_ns, dur, meth, args, strict=True)
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
