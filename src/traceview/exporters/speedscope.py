"""The `speedscope` exporter: speedscope's own file format
(https://www.speedscope.app/file-format-schema.json), one evented profile per thread.

Frames are shared by every profile (one per method: its label, source file and line when
known). Each thread's profile opens and closes a frame for every call of the selection, in
nanoseconds on the query's clock from the trace's start, clipped to the time range; the
order of the events is the depth-first order of the calls (an exit before the next sibling's
entry), computed with one sort. `merge_threads` does not apply: speedscope shows one profile
at a time and merges nothing across them. Written in chunks, never as one big list.
"""

from __future__ import annotations

import json
from typing import IO, Any

import numpy as np

from traceview.analysis.view import View
from traceview.exporters import Exporter, Options
from traceview.exporters.stacks import ThreadCalls, frame_names, origins, thread_calls
from traceview.model import visible

SCHEMA = "https://www.speedscope.app/file-format-schema.json"
CHUNK = 1 << 17  # events formatted per write


def event_order(part: ThreadCalls) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The thread's open/close events in nesting order: (call row, is_close) per event. A close
    of call i sits just before the entry of row subtree_end[i], deeper closes first."""
    n = len(part)
    rows = np.arange(n, dtype=np.int64)
    primary = np.concatenate((rows, part.subtree_end))
    closing = np.concatenate((np.zeros(n, dtype=np.int8), np.ones(n, dtype=np.int8)))
    # at one position: closes (deepest first), then the open
    tertiary = np.concatenate((np.zeros(n, dtype=np.int64), -part.depth.astype(np.int64)))
    order = np.lexsort((tertiary, 1 - closing, primary))
    call = np.concatenate((rows, rows))[order]
    return call, closing[order].astype(bool)


def _frames(view: View) -> list[dict[str, Any]]:
    methods = view.methods
    out = []
    for i, name in enumerate(frame_names(view)):
        frame: dict[str, Any] = {"name": name}
        if methods.source_file[i]:
            frame["file"] = visible(methods.source_file[i])
        if int(methods.line[i]) >= 0:
            frame["line"] = int(methods.line[i])
        out.append(frame)
    return out


def export_speedscope(view: View, out: IO[Any], options: Options) -> None:
    """The speedscope JSON document, streamed thread by thread."""
    clock = view.query.clock
    zero = origins(view)[clock]
    th = view.trace.threads
    title = options.title or f"traceview ({clock} time)"
    head = {
        "$schema": SCHEMA,
        "exporter": "traceview",
        "name": visible(title),
        "activeProfileIndex": 0,
        "shared": {"frames": _frames(view)},
    }
    text = json.dumps(head, ensure_ascii=False, separators=(",", ":"))
    out.write(text[:-1] + ',"profiles":[')
    first = True
    for part in thread_calls(view):
        call, closing = event_order(part)
        start = part.start[clock] - zero
        end = part.end[clock] - zero
        at = np.where(closing, end[call], start[call])
        profile = {
            "type": "evented",
            "name": visible(f"{th.label(part.thread)} ({clock})"),
            "unit": "nanoseconds",
            "startValue": int(at[0]),
            "endValue": int(at[-1]),
        }
        body = json.dumps(profile, ensure_ascii=False, separators=(",", ":"))
        out.write(("" if first else ",\n") + body[:-1] + ',"events":[\n')
        first = False
        method = part.method
        for lo in range(0, len(call), CHUNK):
            sl = slice(lo, lo + CHUNK)
            kinds = closing[sl].tolist()
            frames = method[call[sl]].tolist()
            ats = at[sl].tolist()
            sep = "" if lo == 0 else ","
            out.write(
                sep
                + ",".join(
                    [
                        f'{{"type":"{"C" if k else "O"}","frame":{f},"at":{a}}}'
                        for k, f, a in zip(kinds, frames, ats, strict=True)
                    ]
                )
            )
        out.write("]}")
    out.write("]}\n")


SPEEDSCOPE = Exporter(
    "speedscope",
    (".speedscope.json", ".speedscope"),
    False,
    "speedscope's file format: one evented profile per thread",
    export_speedscope,
)

__all__ = ["SPEEDSCOPE", "event_order"]
