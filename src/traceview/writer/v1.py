"""The V1 variants: regular (key + data), split `.key`/`.data`, bare data-only and streaming
(0xF1-0xF3, with or without the trailing summary).

`plan()` turns a Trace and the caller's choices into a `Plan` (version, clock columns, id
encodings, the key text); the `write_*` functions then stream bytes to a binary file.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np
import numpy.typing as npt

from traceview.model import Clock, Trace
from traceview.writer import keytext
from traceview.writer.keytext import Style
from traceview.writer.records import (
    RecordLayout,
    data_header,
    min_record_size,
    record_chunks,
)

SINGLE_CLOCKS = ("thread-cpu", "wall", "global")


@dataclass(frozen=True)
class Plan:
    """Everything fixed before the first byte is written."""

    version: int  # 1, 2 or 3 (streaming ORs 0xF0 on its own)
    clock: Clock
    style: Style
    record_size: int
    data_offset: int
    start_us: int
    overflow: bool
    elapsed_us: int
    layout: RecordLayout


def plan(
    trace: Trace,
    *,
    version: int | None = None,
    clock: Clock | None = None,
    style: Style | None = None,
    record_size: int | None = None,
    data_offset: int = 32,
    overflow: bool | None = None,
    renumber: bool | None = None,
) -> Plan:
    """Check the choices against the trace and fill in defaults from its header."""
    h = trace.header
    clock = clock or h.clock
    version = _version(trace, version, clock)
    if record_size is None:
        keep = h.record_size if (h.version & 0x0F) == 3 and h.record_size else 0
        record_size = max(keep, min_record_size(version)) if version == 3 else 0
    record_size = record_size or min_record_size(version)
    if record_size < min_record_size(version) or (version < 3 and record_size != 9 + version - 1):
        raise ValueError(f"record size {record_size} is not possible for version {version}")
    if data_offset < (18 if version == 3 else 16):
        raise ValueError(f"offset to data {data_offset} is too small for version {version}")
    times = _time_columns(trace, clock)
    return Plan(
        version=version,
        clock=clock,
        style=style or ("dalvik" if h.vm == "dalvik" else "art"),
        record_size=record_size,
        data_offset=data_offset,
        start_us=h.start_time_us or 0,
        overflow=h.overflow if overflow is None else overflow,
        elapsed_us=_elapsed_us(trace, times),
        layout=RecordLayout(
            version=version,
            record_size=record_size,
            times=times,
            thread_ids=_thread_ids(trace, version),
            method_ids=_method_ids(trace.methods.id, renumber),
        ),
    )


def _version(trace: Trace, version: int | None, clock: Clock) -> int:
    if version is None:
        found = (
            trace.header.version & 0x0F
            if trace.header.version in (1, 2, 3, 0xF1, 0xF2, 0xF3)
            else 0
        )
        ok = found == 3 if clock == "dual" else found in (1, 2)
        version = found if ok else (3 if clock == "dual" else 2)
    version &= 0x0F if version in (0xF1, 0xF2, 0xF3) else 0xFF
    if version not in (1, 2, 3):
        raise ValueError(f"V1 version must be 1, 2 or 3, not {version}")
    if (version == 3) != (clock == "dual"):
        raise ValueError(f"version {version} cannot hold clock={clock} (v3 is the dual-clock one)")
    return version


def _time_columns(trace: Trace, clock: Clock) -> tuple[npt.NDArray[np.int64], ...]:
    ev = trace.events
    wanted = {"dual": ("cpu", "wall"), "thread-cpu": ("cpu",), "wall": ("wall",)}.get(clock)
    if wanted is None:  # global (a common wall clock): wall when the trace has it
        wanted = ("wall",) if "wall" in ev.clocks else (ev.clocks[0],)
    missing = [c for c in wanted if c not in ev.clocks]
    if missing:
        raise ValueError(
            f"clock={clock} needs the {' and '.join(missing)} clock, which the trace lacks"
        )
    return tuple(ev.time(c) for c in wanted)


def _elapsed_us(trace: Trace, times: tuple[npt.NDArray[np.int64], ...]) -> int:
    if trace.header.elapsed_ns is not None:
        return trace.header.elapsed_ns // 1000
    col = times[-1]
    return int(col.max() - col.min()) // 1000 if len(col) else 0


def _thread_ids(trace: Trace, version: int) -> npt.NDArray[np.uint16]:
    ids = trace.threads.id
    used = _used_threads(trace)
    limit = 0xFF if version == 1 else 0xFFFF
    bad = ids[used][(ids[used] < 0) | (ids[used] > limit)]
    if len(bad):
        raise ValueError(f"thread id {int(bad[0])} does not fit a version {version} record")
    return (ids & limit).astype(np.uint16)


def _used_threads(trace: Trace) -> npt.NDArray[np.int64]:
    """Rows of the threads that have records (bincount: no sort of the event column)."""
    return np.flatnonzero(np.bincount(trace.events.thread, minlength=len(trace.threads)))


def _method_ids(ids: npt.NDArray[np.uint64], renumber: bool | None) -> npt.NDArray[np.uint32]:
    fits = bool(np.all(ids <= 0xFFFF_FFFC) and np.all(ids & np.uint64(3) == 0))
    if renumber is None:
        renumber = not fits
    if not renumber and not fits:
        raise ValueError("method ids do not fit 32 bits with the two action bits clear")
    if renumber:
        return (np.arange(len(ids), dtype=np.uint32) << np.uint32(2)).astype(np.uint32)
    return ids.astype(np.uint32)


def key_bytes(
    trace: Trace, p: Plan, *, streaming: bool, method_rows: list[int] | None = None
) -> bytes:
    """The key section (regular/split) or trailing summary (streaming) text."""
    h = trace.header
    computed: dict[str, str | None] = {
        "data-file-overflow": "true" if p.overflow else "false",
        "clock": p.clock,
        "elapsed-time-usec": str(p.elapsed_us),
        "num-method-calls": None if streaming else str(len(trace.events)),
        "vm": p.style,
    }
    if streaming and "num-method-calls" in h.options:
        computed["num-method-calls"] = str(len(trace.events))
    if h.pid is not None and p.style == "art":
        computed["pid"] = str(h.pid)
    options = keytext.options_text(h.options, computed, drop=("elapsed-time-nsec",))
    declared = np.flatnonzero(trace.methods.declared).tolist()
    rows = declared if method_rows is None else method_rows
    ids = p.layout.method_ids.astype(np.uint64)
    return keytext.key_text(
        version=p.version,
        options=options,
        threads=[] if streaming else keytext.thread_lines(trace, range(len(trace.threads))),
        methods=keytext.method_lines(trace, rows, ids, p.style),
    )


def write_data(trace: Trace, p: Plan, fh: BinaryIO) -> None:
    """The data section alone: header then every record (data-only files, `.data` halves)."""
    fh.write(data_header(p.version, p.data_offset, p.start_us, p.record_size))
    for chunk in record_chunks(trace, p.layout):
        fh.write(chunk)


def write_regular(trace: Trace, p: Plan, fh: BinaryIO) -> None:
    """Key section followed by the data section, as `Debug.startMethodTracing` leaves it."""
    fh.write(key_bytes(trace, p, streaming=False))
    write_data(trace, p, fh)


def write_streaming(trace: Trace, p: Plan, fh: BinaryIO, *, summary: bool = True) -> None:
    """0xF1-0xF3: thread and method packets before first use, records, then the summary."""
    ev, rs = trace.events, p.record_size
    if len(ev) and int(p.layout.thread_ids[_used_threads(trace)].min()) == 0:
        raise ValueError("thread id 0 cannot be written in a streaming trace (it is the escape)")
    packets = _packets(trace, p)
    fh.write(data_header(p.version | 0xF0, p.data_offset, p.start_us, rs))
    at, k = 0, 0  # records written so far, next packet
    for data in record_chunks(trace, p.layout):
        chunk = memoryview(data)
        end, start = at + len(chunk) // rs, 0
        while k < len(packets) and packets[k][0] < end:
            pos, blob = packets[k]
            fh.write(chunk[start * rs : (pos - at) * rs])
            fh.write(blob)
            start, k = pos - at, k + 1
        fh.write(chunk[start * rs :])
        at = end
    if summary:
        text = key_bytes(trace, p, streaming=True, method_rows=_summary_rows(trace))
        fh.write(struct.pack("<HBI", 0, 3, len(text)) + text)


def _first_uses(col: npt.NDArray[np.integer], rows: int) -> npt.NDArray[np.int64]:
    """The index of the first event using each row, or -1 when none does."""
    first = np.full(rows, len(col), dtype=np.int64)
    np.minimum.at(first, col, np.arange(len(col), dtype=np.int64))
    first[first == len(col)] = -1
    return first


def _summary_rows(trace: Trace) -> list[int]:
    """Declared methods in packet order (first use), then the unused ones in row order."""
    first = _first_uses(trace.events.method, len(trace.methods))
    declared = trace.methods.declared
    used = np.flatnonzero(declared & (first >= 0))
    used = used[np.argsort(first[used], kind="stable")]
    return [*used.tolist(), *np.flatnonzero(declared & (first < 0)).tolist()]


def _packets(trace: Trace, p: Plan) -> list[tuple[int, bytes]]:
    """(record index, bytes) of every thread and method packet, sorted by position."""
    ev, th, me = trace.events, trace.threads, trace.methods
    out: list[tuple[int, int, int, bytes]] = []
    for row, pos in enumerate(_first_uses(ev.thread, len(th)).tolist()):
        name = th.name[row]
        if pos >= 0 and name is not None:
            blob = keytext.encode(name)[:0xFFFF]
            tid = int(p.layout.thread_ids[row])
            out.append((pos, 0, row, struct.pack("<HBHH", 0, 2, tid, len(blob)) + blob))
    ids = p.layout.method_ids.astype(np.uint64)
    for row, pos in enumerate(_first_uses(ev.method, len(me)).tolist()):
        if pos >= 0 and me.declared[row]:
            line = keytext.encode(keytext.method_lines(trace, [row], ids, p.style)[0])
            out.append((pos, 1, row, struct.pack("<HBH", 0, 1, len(line)) + line))
    out.sort(key=lambda x: (x[0], x[1], x[2]))
    return [(pos, blob) for pos, _, _, blob in out]
