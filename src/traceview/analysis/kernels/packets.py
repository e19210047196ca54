"""Compiled protobuf writing and reading for the `perfetto` format: the TracePackets of a
method trace's slices, written many at once into a byte buffer (chunk by chunk on the worker
threads), and a walk over a Perfetto trace's top-level packets that finds the sequence ids and
track uuids already in use (for `--merge-into`).

An event packet is `Trace.packet` (field 1) holding the timestamp (field 8), a `TrackEvent`
(field 11: `type` 9, `name_iid` 10 for a slice's begin, one `extra_counter_values` 12 when the
thread's CPU time is written) and a constant tail (the sequence id and flags). Every length
fits one byte, so a packet is written front to back with no second pass. Importing this module
imports numba (through `analysis.jit`), so only the perfetto format pays for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Final

import numpy as np
import numpy.typing as npt

from traceview.analysis.kernels.jit import njit
from traceview.analysis.kernels.jsonbytes import Buffers
from traceview.analysis.workers import default_workers, parallel_imap

U8 = npt.NDArray[np.uint8]
U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]

# the fields of an event, as rows of the columns the kernel takes
TS: Final = 0  # timestamp ns (uint64)
IID: Final = 1  # interned name of a begin (0 for an end)
CPU: Final = 2  # thread CPU ns at the event (read only when the packets carry it)
END: Final = 3  # 1 for a slice's end, 0 for its begin
ROWS: Final = 4
MOST: Final = 2 + (1 + 10) + 2 + 2 + (1 + 10) * 2  # a packet's bytes but the tail
CHUNK = 1 << 17  # events per chunk: ~4 MB of packets


@njit
def _vlen(u: np.uint64) -> int:
    """The bytes of the varint of `u`."""
    n = 1
    while u >= np.uint64(0x80):
        u >>= np.uint64(7)
        n += 1
    return n


@njit
def _varint(buf: U8, pos: int, u: np.uint64) -> int:
    """Write the varint of `u` at `pos`; the position after it."""
    at = np.uint64(pos)
    while u >= np.uint64(0x80):
        buf[at] = np.uint8((u & np.uint64(0x7F)) | np.uint64(0x80))
        u >>= np.uint64(7)
        at += np.uint64(1)
    buf[at] = np.uint8(u)
    return int(at) + 1


@njit
def _events(buf: U8, cols: U64, cpu: bool, tail: U8) -> int:
    """One packet per column of `cols` (`ROWS` x events) into `buf`; the bytes written."""
    pos = 0
    k = len(tail)
    one = np.uint64(1)
    for r in range(cols.shape[1]):
        ts = cols[0, r]
        iid = cols[1, r]
        thread_ns = cols[2, r]
        end = cols[3, r] != np.uint64(0)
        inner = 2  # type
        if not end:
            inner += 1 + _vlen(iid)
        if cpu:
            inner += 1 + _vlen(thread_ns)
        at = np.uint64(pos)
        buf[at] = 0x0A  # Trace.packet
        buf[at + one] = np.uint8(1 + _vlen(ts) + 2 + inner + k)
        buf[at + np.uint64(2)] = 0x40  # TracePacket.timestamp
        pos = _varint(buf, pos + 3, ts)
        at = np.uint64(pos)
        buf[at] = 0x5A  # TracePacket.track_event
        buf[at + one] = np.uint8(inner)
        buf[at + np.uint64(2)] = 0x48  # TrackEvent.type
        buf[at + np.uint64(3)] = 2 if end else 1  # TYPE_SLICE_END, TYPE_SLICE_BEGIN
        pos += 4
        if not end:
            buf[np.uint64(pos)] = 0x50  # TrackEvent.name_iid
            pos = _varint(buf, pos + 1, iid)
        if cpu:
            buf[np.uint64(pos)] = 0x60  # TrackEvent.extra_counter_values
            pos = _varint(buf, pos + 1, thread_ns)
        at = np.uint64(pos)
        for j in range(k):
            buf[at + np.uint64(j)] = tail[j]
        pos += k
    return pos


def event_packets(cols: I64, cpu: bool, tail: bytes) -> bytes:
    """The packets of `cols` (`ROWS` x events, int64: negative values as their 64-bit two's
    complement, as protobuf writes an int64) as bytes."""
    fields: U64 = np.ascontiguousarray(cols, dtype=np.int64).view(np.uint64)
    buf = np.empty((MOST + len(tail)) * fields.shape[1], dtype=np.uint8)
    used = _events(buf, fields, cpu, np.frombuffer(tail, dtype=np.uint8))
    return buf[:used].tobytes()


def written(
    columns: Callable[[int, int], I64],
    n: int,
    cpu: bool,
    tail: bytes,
    buffers: Buffers,
    workers: int | None = None,
) -> Iterator[memoryview]:
    """The packets of `n` events in order, a chunk at a time: `columns(lo, hi)` gives the
    `ROWS` x (hi - lo) int64 fields of events `lo:hi`. Chunks are built on up to `workers`
    threads (default: `TRACEVIEW_WORKERS`, else two), each valid until the next is asked."""
    if workers is None:
        workers = default_workers(unset=2)
    code = np.frombuffer(tail, dtype=np.uint8)
    spans = [(lo, min(lo + CHUNK, n)) for lo in range(0, n, CHUNK)]

    def build(span: tuple[int, int]) -> tuple[U8, int]:
        fields: U64 = np.ascontiguousarray(columns(*span), dtype=np.int64).view(np.uint64)
        buf = buffers.take((MOST + len(tail)) * fields.shape[1])
        return buf, _events(buf, fields, cpu, code)

    for buf, used in parallel_imap(build, spans, workers):
        yield buf.data[:used]
        buffers.give(buf)


@njit
def _read(data: U8, pos: int, end: int) -> tuple[np.uint64, int]:
    """The varint at `pos` and the position after it (-1: it runs past `end` or 10 bytes)."""
    u = np.uint64(0)
    shift = np.uint64(0)
    while pos < end and shift < np.uint64(70):
        b = np.uint64(data[np.uint64(pos)])
        pos += 1
        u |= (b & np.uint64(0x7F)) << shift
        if b < np.uint64(0x80):
            return u, pos
        shift += np.uint64(7)
    return u, -1


@njit
def _scan(data: U8, lo: np.uint64, hi: np.uint64) -> tuple[int, int, np.uint64, np.uint64]:
    """Walk a Perfetto `Trace`: (status, byte offset, largest sequence id, largest track uuid
    in [lo, hi) plus one, or `lo`). Status 0 is a whole trace; 1 a key that is not a packet
    at the offset; 2 a packet or field running past the end; 3 a malformed field."""
    n = len(data)
    pos = 0
    seq = np.uint64(0)
    free = lo
    while pos < n:
        start = pos
        key, pos = _read(data, pos, n)
        if pos < 0:
            return 2, start, seq, free
        if key != np.uint64(0x0A):
            return 1, start, seq, free
        size, pos = _read(data, pos, n)
        if pos < 0 or size > np.uint64(n - pos):
            return 2, start, seq, free
        end = pos + int(size)
        while pos < end:
            field = pos
            key, pos = _read(data, pos, end)
            if pos < 0:
                return 3, field, seq, free
            wire = key & np.uint64(7)
            number = key >> np.uint64(3)
            if wire == np.uint64(0):
                value, pos = _read(data, pos, end)
                if pos < 0:
                    return 3, field, seq, free
                if number == np.uint64(10) and value > seq:  # trusted_packet_sequence_id
                    seq = value
            elif wire == np.uint64(2):
                size, pos = _read(data, pos, end)
                if pos < 0 or size > np.uint64(end - pos):
                    return 3, field, seq, free
                stop = pos + int(size)
                if number == np.uint64(60):  # track_descriptor: its uuid (field 1)
                    inner = pos
                    while inner < stop:
                        key, inner = _read(data, inner, stop)
                        if inner < 0:
                            break
                        w = key & np.uint64(7)
                        if w == np.uint64(0):
                            value, inner = _read(data, inner, stop)
                            if inner < 0:
                                break
                            if key == np.uint64(8) and lo <= value < hi and value >= free:
                                free = value + np.uint64(1)
                        elif w == np.uint64(2):
                            size, inner = _read(data, inner, stop)
                            if inner < 0 or size > np.uint64(stop - inner):
                                break
                            inner += int(size)
                        elif w == np.uint64(1):
                            inner += 8
                        elif w == np.uint64(5):
                            inner += 4
                        else:
                            break
                pos = stop
            elif wire == np.uint64(1):
                pos += 8
            elif wire == np.uint64(5):
                pos += 4
            else:
                return 3, field, seq, free
            if pos > end:
                return 3, field, seq, free
    return 0, n, seq, free


def scan(data: U8, lo: int, hi: int) -> tuple[int, int, int, int]:
    """`_scan` of a Perfetto trace's bytes: (status, offset, largest sequence id, first
    uuid at or above `lo` after every track uuid the trace uses in [lo, hi))."""
    status, offset, seq, free = _scan(data, np.uint64(lo), np.uint64(hi))
    return int(status), int(offset), int(seq), int(free)


__all__ = [
    "CHUNK",
    "CPU",
    "END",
    "IID",
    "ROWS",
    "TS",
    "Buffers",
    "event_packets",
    "scan",
    "written",
]
