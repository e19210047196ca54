"""The `speedscope` format: speedscope's own file format
(https://www.speedscope.app/file-format-schema.json), one evented profile per thread.

Frames are shared by every profile (one per method: its label, source file and line when
known). Each thread's profile opens and closes a frame for every call of the selection, in
nanoseconds on the query's clock from the trace's start, clipped to the time range; the
order of the events is the depth-first order of the calls (an exit before the next sibling's
entry), computed without sorting from the subtree ends. There is no merged form (its
`Options` has no `merge_threads`): speedscope shows one profile at a time and merges
nothing across them. The events are formatted by a compiled kernel (`jsonbytes`), chunk by
chunk on the worker threads, and written as they are built, never as one big list.
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

NAME = "speedscope"
SUFFIXES = (".speedscope.json", ".speedscope")
BINARY = False
SUBJECT = "view"


@dataclass(frozen=True)
class Options:
    """`title`: the file's name in speedscope (default "traceview (CLOCK time)"). No
    `merge_threads`: speedscope shows one profile at a time and merges none."""

    title: str | None = None


SCHEMA = "https://www.speedscope.app/file-format-schema.json"
I64 = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]


def event_order(part: ThreadCalls) -> tuple[I64, Bools]:
    """The thread's open/close events in nesting order: (call row, is_close) per event.

    No sort: each event's slot follows from counts. Let d[i] be the number of ancestors of
    row i (the calls before it whose subtree has not ended: i - #{j: subtree_end[j] <= i}).
    The open of row i comes after the i opens of rows < i and the closes of all of those but
    its d[i] ancestors: slot 2i - d[i]. The close of row i, whose subtree ends at e, comes
    after the e opens of rows < e and the closes of all of those but itself and its d[i]
    ancestors (deeper calls close first): slot 2e - 1 - d[i]. Depths are counted from the
    subtree ends, so the order is that of the nesting itself."""
    n = len(part)
    end = part.subtree_end
    rows = np.arange(n, dtype=np.int64)
    closed = np.cumsum(np.bincount(end, minlength=n + 1)[:n])  # calls ended at or before i
    depth = rows - closed
    call = np.empty(2 * n, dtype=np.int64)
    closing = np.ones(2 * n, dtype=bool)
    opens = rows + closed
    call[opens] = rows
    closing[opens] = False
    call[2 * end - 1 - depth] = rows
    return call, closing


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


def export(view: View, out: IO[Any], options: Options) -> None:
    """The speedscope JSON document, streamed thread by thread."""
    from traceview.analysis.kernels import jsonbytes  # numba: paid only by the formats using it

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
    INT, TEXT = jsonbytes.INT, jsonbytes.TEXT
    # `,{"type":"O","frame":12,"at":3456}`: the thread's first event drops its comma
    events = jsonbytes.Template(
        [b',{"type":"', b'","frame":', b',"at":', b"}"], [TEXT, INT, INT], [b"O", b"C"]
    )
    buffers = jsonbytes.Buffers()
    first = True
    for part in thread_calls(view):
        call, closing = event_order(part)
        profile = {
            "type": "evented",
            "name": visible(f"{th.label(part.thread)} ({clock})"),
            "unit": "nanoseconds",
            "startValue": int(part.spans.start(clock, call[:1])[0]) - zero,
            "endValue": int(part.spans.end(clock, call[-1:])[0]) - zero,
        }
        body = json.dumps(profile, ensure_ascii=False, separators=(",", ":"))
        out.write(("" if first else ",\n") + body[:-1] + ',"events":[\n')
        first = False

        def columns(
            lo: int, hi: int, part: ThreadCalls = part, call: I64 = call, closing: Bools = closing
        ) -> I64:
            sl = slice(lo, hi)
            rows, kind = call[sl], closing[sl]
            cols = np.empty((3, hi - lo), dtype=np.int64)
            cols[0] = kind
            cols[1] = part.method[rows]
            np.subtract(part.spans.at(clock, rows, kind), zero, out=cols[2])
            return cols

        write = jsonbytes.byte_writer(out)
        chunks = jsonbytes.formatted(events, columns, len(call), buffers=buffers)
        for i, chunk in enumerate(chunks):
            write(chunk if i else chunk[1:])
        out.write("]}")
    out.write("]}\n")


__all__ = ["Options", "event_order", "export"]
