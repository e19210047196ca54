"""Compiled protobuf writing for the `perfetto` format: the TracePackets of a method trace's
slices, written many at once into a byte buffer, chunk by chunk on the worker threads
(`protoscan.py` reads a system trace for `--merge-into`).

An event packet is `Trace.packet` (field 1) holding the timestamp (field 8), a `TrackEvent`
(field 11: `type` 9, `name_iid` 10 for a slice's begin, one `extra_counter_values` 12 when the
thread's CPU time is written) and a constant tail (the sequence id and flags). Every length
fits one byte, so a packet is written front to back with no second pass; the kernel reads each
event's times through its call's event rows itself (no column of every event's is made).
Importing this module imports numba (through `analysis.jit`), so only the perfetto format pays
for it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from traceview.analysis.kernels.jit import njit
from traceview.analysis.kernels.jsonbytes import Buffers
from traceview.analysis.workers import default_workers, parallel_imap

U8 = npt.NDArray[np.uint8]
U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]

MOST = 2 + (1 + 10) + 2 + 2 + (1 + 10) * 2  # a packet's bytes but the tail
CHUNK = 1 << 16  # calls per chunk: ~4 MB of packets


@dataclass(frozen=True)
class Calls:
    """One thread's calls for the kernel, in pre-order: `subtree_end` and `parent` (rows of
    these calls, -1 for a root), `method` rows, and where each call's start and end are
    (`open_at` into `t_open` and `c_open`, `close_at` into `t_close` and `c_close`: the
    events' time columns through the calls' event rows, or per-call arrays through
    `arange`) on the timestamp clock (`t_*`, minus `zero`) and the thread's CPU clock (`c_*`,
    read when `cpu`). `depth` is the deepest call's depth (the stack the walk keeps)."""

    subtree_end: I64
    parent: I64
    method: npt.NDArray[np.int32]
    open_at: I64
    close_at: I64
    t_open: I64
    t_close: I64
    c_open: I64
    c_close: I64
    zero: int
    cpu: bool
    depth: int

    def __len__(self) -> int:
        return len(self.subtree_end)


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
def _packet(
    buf: U8, pos: int, ts: np.uint64, iid: np.uint64, cpu: bool, ns: np.uint64, tail: U8
) -> int:
    """One event packet at `pos` (a begin naming `iid`, an end when `iid` is 0); the position
    after it. Lengths are one byte (a packet is under 128 bytes): reserved, then filled."""
    start = np.uint64(pos)
    buf[start] = 0x0A  # Trace.packet
    buf[start + np.uint64(2)] = 0x40  # TracePacket.timestamp
    pos = _varint(buf, pos + 3, ts)
    event = np.uint64(pos)
    buf[event] = 0x5A  # TracePacket.track_event
    buf[event + np.uint64(2)] = 0x48  # TrackEvent.type
    if iid:
        buf[event + np.uint64(3)] = 1  # TYPE_SLICE_BEGIN
        buf[event + np.uint64(4)] = 0x50  # TrackEvent.name_iid
        pos = _varint(buf, pos + 5, iid)
    else:
        buf[event + np.uint64(3)] = 2  # TYPE_SLICE_END
        pos += 4
    if cpu:
        buf[np.uint64(pos)] = 0x60  # TrackEvent.extra_counter_values
        pos = _varint(buf, pos + 1, ns)
    buf[event + np.uint64(1)] = np.uint8(np.uint64(pos) - event - np.uint64(2))
    at = np.uint64(pos)
    for j in range(len(tail)):
        buf[at + np.uint64(j)] = tail[j]
    pos += len(tail)
    buf[start + np.uint64(1)] = np.uint8(np.uint64(pos) - start - np.uint64(2))
    return pos


Tree = tuple[I64, I64, npt.NDArray[np.int32]]  # subtree_end, parent, method per call
Where = tuple[I64, I64]  # per call: the row of its start and of its end in the time columns
Times = tuple[I64, I64, I64, I64]  # start and end columns: the timestamp clock's, the CPU's


@njit
def _walk(
    buf: U8,
    span: tuple[int, int, bool],
    tree: Tree,
    where: Where,
    times: Times,
    axis: tuple[np.int64, bool],
    tail: U8,
    stack: I64,
) -> int:
    """The packets of calls `lo:hi` (`span`: lo, hi, last) in nesting order into `buf`: each
    call's begin, and the ends of the calls that close before the next begins; with `last`,
    the ends of every call still open. The bytes written. The calls open before `lo` (the
    chain of `lo - 1` and its callers) are found through the parents. Times are written as
    protobuf writes an int64 (a negative one as its two's complement). `axis`: the time
    origin and whether the CPU counter is written."""
    lo, hi, last = span
    zero, cpu = axis
    subtree_end, parent, method = tree
    open_at, close_at = where
    t_open, t_close, c_open, c_close = times
    top = 0
    j = lo - 1
    while j >= 0:  # the chain's length, then the chain, outermost first
        top += 1
        j = parent[j]
    j = lo - 1
    for k in range(top - 1, -1, -1):
        stack[k] = j
        j = parent[j]
    pos = 0
    ns = np.uint64(0)
    for i in range(lo, hi + (1 if last else 0)):
        bound = i if i < hi else len(subtree_end) + 1
        while top > 0 and subtree_end[stack[top - 1]] <= bound:
            top -= 1
            c = stack[top]
            at = close_at[c]
            if cpu:
                ns = np.uint64(c_close[at])
            ts = np.uint64(t_close[at] - zero)
            pos = _packet(buf, pos, ts, np.uint64(0), cpu, ns, tail)
        if i == hi:
            break
        at = open_at[i]
        if cpu:
            ns = np.uint64(c_open[at])
        ts = np.uint64(t_open[at] - zero)
        pos = _packet(buf, pos, ts, np.uint64(method[i]) + np.uint64(1), cpu, ns, tail)
        stack[top] = i
        top += 1
    return pos


def _into(buf: U8, ca: Calls, lo: int, hi: int, code: U8) -> int:
    stack = np.empty(ca.depth + 2, dtype=np.int64)
    tree = (ca.subtree_end, ca.parent, ca.method)
    times = (ca.t_open, ca.t_close, ca.c_open, ca.c_close)
    span = (lo, hi, hi == len(ca))
    where = (ca.open_at, ca.close_at)
    return int(_walk(buf, span, tree, where, times, (np.int64(ca.zero), ca.cpu), code, stack))


def _size(ca: Calls, lo: int, hi: int, tail: bytes) -> int:
    """The most bytes the packets of calls `lo:hi` take: a begin per call, the ends of the
    calls open at `lo` and of every call of the chunk."""
    return (MOST + len(tail)) * (2 * (hi - lo) + ca.depth + 2)


def event_packets(ca: Calls, tail: bytes) -> bytes:
    """The packets of every call of `ca` (a begin and an end each, each packet ending with
    `tail`) as bytes."""
    buf = np.empty(_size(ca, 0, len(ca), tail), dtype=np.uint8)
    used = _into(buf, ca, 0, len(ca), np.frombuffer(tail, dtype=np.uint8))
    return buf[:used].tobytes()


def written(
    ca: Calls, tail: bytes, buffers: Buffers, workers: int | None = None, chunk: int = CHUNK
) -> Iterator[memoryview]:
    """The packets of `ca`'s calls in order, a chunk of `chunk` calls at a time, built on up
    to `workers` threads (default: `TRACEVIEW_WORKERS`, else two); each chunk is valid until
    the next is asked for."""
    if workers is None:
        workers = default_workers(unset=2)
    code = np.frombuffer(tail, dtype=np.uint8)
    n = len(ca)
    spans = [(lo, min(lo + chunk, n)) for lo in range(0, n, max(1, chunk))]

    def build(span: tuple[int, int]) -> tuple[U8, int]:
        buf = buffers.take(_size(ca, span[0], span[1], tail))
        return buf, _into(buf, ca, span[0], span[1], code)

    for buf, used in parallel_imap(build, spans, workers):
        yield buf.data[:used]
        buffers.give(buf)


__all__ = ["CHUNK", "Buffers", "Calls", "event_packets", "written"]
