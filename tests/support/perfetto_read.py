"""The Perfetto export read back for the tests: files rendered from a view, decoded by protoc
(support/protoc.py) and replayed as trace_processor reads them, and what the call table says
they should hold."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any

from support.protoc import Message, one
from traceview.analysis import Session
from traceview.analysis.calls import SYNTH_ENTRY
from traceview.analysis.view import View
from traceview.exporters import get
from traceview.exporters.perfetto import monotonic_offset
from traceview.model import Trace, visible

SYSTEM = "sidky-nowinandroid/trace.perfetto-trace"  # the corpus's real system trace


def render(view: View, **options: Any) -> bytes:
    fmt = get("perfetto")
    buf = io.BytesIO()
    fmt.export(view, buf, fmt.options(**options))
    return buf.getvalue()


def whole(trace: Trace) -> View:
    s = Session(trace)
    return View(s, s.query())


@dataclass
class Read:
    """What a decoded file holds: descriptors by uuid, slices per track (begin order: name,
    start, end, depth, cpu at start, cpu at end), instants, the sequences seen."""

    tracks: dict[int, Message] = field(default_factory=dict)
    slices: dict[int, list[tuple[str, int, int, int, int | None, int | None]]] = field(
        default_factory=dict
    )
    instants: list[tuple[int, Message]] = field(default_factory=list)
    sequences: set[int] = field(default_factory=set)
    clock: str | None = None


def read(pk: list[Message]) -> Read:
    """Replay the packets as trace_processor reads them: sequence state (defaults, interned
    names) cleared by the flag, slices paired by a stack per track."""
    out = Read()
    state: dict[int, dict[str, Any]] = {}
    open_: dict[int, list[list[Any]]] = {}
    slices: dict[int, list[list[Any]]] = {}  # begun, their ends filled in later
    for p in pk:
        if "clock_snapshot" in p:
            out.clock = one(one(p, "clock_snapshot"), "primary_trace_clock")
        if "track_descriptor" in p:
            d = one(p, "track_descriptor")
            assert one(d, "uuid") not in out.tracks, "track uuid used twice"
            out.tracks[one(d, "uuid")] = d
        seq = one(p, "trusted_packet_sequence_id")
        if seq is None:
            continue
        out.sequences.add(seq)
        flags = one(p, "sequence_flags", 0)
        if flags & 1:
            state[seq] = {"defaults": one(p, "trace_packet_defaults", {}), "names": {}}
        if "interned_data" in p:
            for entry in one(p, "interned_data").get("event_names", []):
                state[seq]["names"][one(entry, "iid")] = one(entry, "name")
        event = one(p, "track_event")
        if event is None:
            continue
        assert flags & 2, "an event packet must say it needs the sequence's state"
        defaults = state[seq]["defaults"]
        assert one(defaults, "timestamp_clock_id") == 3
        event_defaults = one(defaults, "track_event_defaults", {})
        track = one(event, "track_uuid", one(event_defaults, "track_uuid"))
        assert track in out.tracks
        ts = one(p, "timestamp")
        kind = one(event, "type")
        counters = event.get("extra_counter_values", [])
        assert len(counters) == len(event_defaults.get("extra_counter_track_uuids", []))
        cpu = counters[0] if counters else None
        stack = open_.setdefault(track, [])
        if kind == "TYPE_SLICE_BEGIN":
            name = state[seq]["names"][one(event, "name_iid")]
            entry = [name, ts, None, len(stack), cpu, None]
            slices.setdefault(track, []).append(entry)
            stack.append(entry)
        elif kind == "TYPE_SLICE_END":
            entry = stack.pop()
            assert ts >= entry[1]
            entry[2], entry[5] = ts, cpu
        else:
            assert kind == "TYPE_INSTANT"
            out.instants.append((ts, event))
    assert all(not s for s in open_.values()), "a slice was never closed"
    out.slices = {k: [(e[0], e[1], e[2], e[3], e[4], e[5]) for e in v] for k, v in slices.items()}
    return out


def thread_tracks(r: Read) -> dict[tuple[int, int], int]:
    """(pid, tid) -> the uuid of its method-trace track."""
    out = {}
    for uuid, d in r.tracks.items():
        thread = one(d, "thread")
        if thread is not None:
            assert one(d, "disallow_merging_with_system_tracks") is True
            out[(one(thread, "pid"), one(thread, "tid"))] = uuid
    return out


def expected(view: View) -> dict[int, list[tuple[str, int, int, int, int | None, int | None]]]:
    """Per thread id, the calls the export shows (all but synthesised entries), in pre-order,
    from the call table: label, wall start/end + the monotonic offset, depth, CPU start/end."""
    s, trace = view.session, view.trace
    calls = s.calls
    offset = monotonic_offset(trace.header)
    assert offset is not None
    out = {}
    for t in range(len(trace.threads)):
        lo, hi = (int(x) for x in calls.thread_ranges[t])
        rows = [r for r in range(lo, hi) if not calls.flags[r] & SYNTH_ENTRY]
        if not rows:
            continue
        cpu = "cpu" in s.clocks
        out[int(trace.threads.id[t])] = [
            (
                visible(view.methods.label(int(calls.method[r]))),
                int(calls.start("wall", slice(r, r + 1))[0]) + offset,
                int(calls.end("wall", slice(r, r + 1))[0]) + offset,
                int(calls.depth[r]),
                int(calls.start("cpu", slice(r, r + 1))[0]) if cpu else None,
                int(calls.end("cpu", slice(r, r + 1))[0]) if cpu else None,
            )
            for r in rows
        ]
    return out
