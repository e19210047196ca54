"""The `perfetto` format: a Perfetto trace (protobuf `Trace`, perfetto_trace.proto) of the
selection's calls as TrackEvent slices, which Perfetto UI and trace_processor open, alone or
appended to a system trace of the same run (`merge_into`; Perfetto traces concatenate).

One track per thread (a TrackDescriptor with the thread's real pid and tid, kept apart from the
system's slices of that thread) on its own packet sequence: its first packet clears the
sequence's state and sets its defaults (CLOCK_MONOTONIC timestamps, the thread's track and its
thread-time counter) and interns the names of the methods the thread calls; then a
TYPE_SLICE_BEGIN and a TYPE_SLICE_END packet per call (nesting order, ns), carrying the
thread's CPU time when recorded (`extra_counter_values` on a COUNTER_THREAD_TIME_NS track, so
trace_processor fills `thread_ts`/`thread_dur`). Calls whose entry the engine synthesised (an
exit without its enter) are left out, as androidx does; calls open at the end close at the
thread's last time, as in the profile. The trace's diagnostics are instant events on a
process track. Event packets are written by a compiled kernel (`analysis/kernels/packets.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from traceview.analysis.calls import SYNTH_ENTRY
from traceview.analysis.timebase import monotonic_offset
from traceview.analysis.view import View
from traceview.exporters.perfetto_system import UUIDS, System, append_to
from traceview.exporters.protowire import bytes_field, varint_field
from traceview.exporters.stacks import ThreadCalls, frame_names, thread_calls
from traceview.model import visible

if TYPE_CHECKING:
    from traceview.analysis.kernels.packets import Calls

NAME = "perfetto"
SUFFIXES = (".perfetto-trace", ".pftrace", ".perfetto")
BINARY = True
SUBJECT = "view"


@dataclass(frozen=True)
class Options:
    """`title`: the process's name (default "app"; with `merge_into`, the system trace's name
    is kept unless given). `merge_into`: the path of a Perfetto system trace of the same run,
    written first, the method trace's packets appended to it."""

    title: str | None = None
    merge_into: str | None = None


I64 = npt.NDArray[np.int64]
MONOTONIC = 3  # BUILTIN_CLOCK_MONOTONIC
CLEARED, NEEDS = 1, 2  # SEQ_INCREMENTAL_STATE_CLEARED, SEQ_NEEDS_INCREMENTAL_STATE
THREAD_TIME_NS = 1  # CounterDescriptor.COUNTER_THREAD_TIME_NS
INSTANT = 3  # TrackEvent.TYPE_INSTANT


def packet(*fields: bytes) -> bytes:
    """One `Trace.packet` (field 1) of the given fields."""
    return bytes_field(1, b"".join(fields))


def text(value: str) -> bytes:
    """A string as protobuf writes it (UTF-8; names already made visible)."""
    return value.encode("utf-8", "backslashreplace")


def sequence_head(seq: int, track: int, counter: int | None, names: bytes) -> bytes:
    """A sequence's first packet: state cleared, defaults (CLOCK_MONOTONIC, the track, its
    thread-time counter), interned event names (`names`: InternedData fields)."""
    event_defaults = varint_field(11, track)
    if counter is not None:
        event_defaults += varint_field(31, counter)
    defaults = varint_field(58, MONOTONIC) + bytes_field(11, event_defaults)
    head = varint_field(10, seq) + varint_field(13, CLEARED | NEEDS) + bytes_field(59, defaults)
    return packet(head + (bytes_field(12, names) if names else b""))


def descriptor(uuid: int, *fields: bytes) -> bytes:
    """A TrackDescriptor packet."""
    return packet(bytes_field(60, varint_field(1, uuid) + b"".join(fields)))


def annotation(name: str, value: str | int) -> bytes:
    """A DebugAnnotation: a string or an int under `name`."""
    body = bytes_field(10, text(name))
    body += bytes_field(6, text(value)) if isinstance(value, str) else varint_field(4, value)
    return bytes_field(4, body)


class Names:
    """Every method's EventName (iid = row + 1, name = its label) encoded once."""

    def __init__(self, view: View) -> None:
        self.entries = [
            bytes_field(2, varint_field(1, i + 1) + bytes_field(2, text(name)))
            for i, name in enumerate(frame_names(view))
        ]

    def interned(self, methods: npt.NDArray[np.int32]) -> bytes:
        """The InternedData fields for the methods a thread calls."""
        return b"".join(self.entries[int(m)] for m in np.unique(methods))


def kept(part: ThreadCalls) -> tuple[I64 | slice, I64, I64]:
    """The calls a thread's track shows (rows of `part`, a slice when all) with their subtree
    ends and parents among them: every call but those whose entry was synthesised (an exit
    without its enter). Those are never inside a recorded call (the engine makes one only on
    an empty stack), so a shown call's parent is shown or it is a root."""
    keep = (part.flags & SYNTH_ENTRY) == 0
    if keep.all():
        return slice(None), part.subtree_end, part.parent
    rows = np.flatnonzero(keep).astype(np.int64)
    before = np.concatenate(([0], np.cumsum(keep, dtype=np.int64)))  # kept rows before k
    parent = part.parent[rows]
    shown = np.where(parent >= 0, before[np.maximum(parent, 0)], -1)
    shown[(parent >= 0) & ~keep[np.maximum(parent, 0)]] = -1
    return rows, before[part.subtree_end[rows]], shown


def export(view: View, out: IO[bytes], options: Options) -> None:
    """The trace, or the system trace of `options.merge_into` with these packets after it."""
    from traceview.analysis.kernels import packets  # numba: paid only by this format

    session, trace = view.session, view.trace
    offset = session.monotonic_shift
    system: System | None = None
    if options.merge_into is not None:
        system = append_to(options.merge_into, out, offset)
    zero = -offset if offset is not None else session.origin
    seq = system.sequence if system is not None else 1
    uuid = system.uuid if system is not None else UUIDS
    if system is None:  # the trace's clock is CLOCK_MONOTONIC (or the file's own ns)
        start = varint_field(2, session.origin - zero)
        snapshot = bytes_field(1, varint_field(1, MONOTONIC) + start)
        out.write(packet(bytes_field(6, snapshot + varint_field(2, MONOTONIC))))
    pid = process_id(view)
    process = uuid
    title = options.title if options.title is not None or system else "app"
    about = varint_field(1, pid) + (bytes_field(6, text(visible(title))) if title else b"")
    out.write(descriptor(process, bytes_field(3, about)))
    first = (seq, uuid + 1)  # the diagnostics' sequence and track, written last
    cpu = "cpu" in session.clocks
    names = Names(view)
    buffers = packets.Buffers()
    th = trace.threads
    axis = session.axis_clock
    for part in thread_calls(view):
        rows, ends, parents = kept(part)
        if not len(ends):
            continue
        t = part.thread
        seq += 1
        uuid += 2
        track, counter = uuid, (uuid + 1 if cpu else None)
        label = visible(th.label(t))
        thread = varint_field(1, pid) + varint_field(2, int(th.id[t]))
        name = th.name[t]
        if name is not None:
            thread += bytes_field(5, text(visible(name)))
        out.write(
            descriptor(
                track,
                bytes_field(2, text(f"{label} (method trace)")),
                bytes_field(4, thread),
                varint_field(9, 1),  # disallow_merging_with_system_tracks
            )
        )
        if counter is not None:
            out.write(descriptor(counter, varint_field(5, track), bytes_field(8, b"\x08\x01")))
        out.write(sequence_head(seq, track, counter, names.interned(part.method[rows])))
        shown = calls(part, rows, ends, parents, axis, zero, cpu)
        tail = varint_field(10, seq) + varint_field(13, NEEDS)
        for chunk in packets.written(shown, tail, buffers):
            out.write(chunk)
    # after the calls: their table (built by now) holds the engine's repairs
    _diagnostics(view, out, *first, process, session.origin - zero)


def calls(
    part: ThreadCalls, rows: I64 | slice, ends: I64, parents: I64, axis: str, zero: int, cpu: bool
) -> Calls:
    """A thread's shown calls for the kernel: their times on `axis` (minus `zero`) and on the
    CPU clock, read through their event rows or from the clipped per-call times."""
    from traceview.analysis.kernels.packets import Calls

    spans = part.spans
    if spans.enter is not None and spans.exit is not None:
        at: tuple[I64, I64] = (spans.enter[rows], spans.exit[rows])
    else:
        index = np.arange(len(part), dtype=np.int64)[rows]
        at = (index, index)
    t = (spans.starts[axis], spans.ends[axis])
    c = (spans.starts["cpu"], spans.ends["cpu"]) if cpu else t
    depth = int(part.depth.max()) if len(part) else 0
    return Calls(ends, parents, part.method[rows], *at, *t, *c, zero, cpu, depth)


def process_id(view: View) -> int:
    """The trace's process id; else the id of its thread named "main" (Android's main thread
    has the process's id); else 1, as the Chrome export writes."""
    pid = view.trace.header.pid
    if pid is not None:
        return int(pid)
    th = view.trace.threads
    for row, name in enumerate(th.name):
        if name == "main":
            return int(th.id[row])
    return 1


def _diagnostics(view: View, out: IO[bytes], seq: int, uuid: int, process: int, at: int) -> None:
    """The diagnostics as instant events at the trace's start, on a track of the process."""
    found = view.session.diagnostics()
    if not found:
        return
    out.write(descriptor(uuid, varint_field(5, process), bytes_field(2, b"traceview diagnostics")))
    out.write(sequence_head(seq, uuid, None, b""))
    tail = varint_field(10, seq) + varint_field(13, NEEDS)
    for d in found:
        event = varint_field(9, INSTANT) + bytes_field(23, text(visible(d.code)))
        event += annotation("message", visible(d.message))
        if d.count is not None:
            event += annotation("count", int(d.count))
        if d.offset is not None:
            event += annotation("offset", int(d.offset))
        out.write(packet(varint_field(8, at), bytes_field(11, event), tail))


__all__ = ["Options", "export", "monotonic_offset", "process_id"]
