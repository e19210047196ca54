"""Writes a trace as Android 16's low-overhead method dump (format.md §1.8), in its
long-running-methods or all-methods mode, for the reader's round-trip tests and
`traceview convert --to low-overhead`.

Per thread, events go in blocks of at most `block_events`: `u1 2 | u4 tid | u3 n | u4 size`
and the payload (the all-methods mode writes the size as 0: ART leaves it unwritten), each
event the SLEB128 delta of `time_ns << 1 | is_exit` and, for an entry, the SLEB128 delta of its
method id (both running values restart at 0 per block). Then, in the order of ART's
`DumpThreadMethodInfo`, thread infos when `thread_names` is set (`u1 0 | u4 tid | u2 len |
name`; the default in the all-methods mode) and one method info per method row (`u1 1 | u8 id |
u2 len | class\\tname\\tsig\\tfile\\n`). Times are the wall clock plus `base_ns`
(CLOCK_MONOTONIC in a real dump). Exits are written without a method, as the format has none;
unrolls become exits.
"""

from __future__ import annotations

import struct
from typing import BinaryIO

import numpy as np

from traceview.model import Trace
from traceview.writer._leb128 import encode

__all__ = ["write_lowoverhead"]

BASE_NS = 86_400 * 10**9  # a day of uptime: absolute monotonic times, like a device's


def dump_bytes(
    trace: Trace,
    *,
    block_events: int = 4096,
    base_ns: int = BASE_NS,
    thread_names: bool | None = None,
    mode: str = "long-running",
) -> bytes:
    """The dump of `trace` (which needs a wall clock) as bytes. `mode` "all" writes ART's
    all-methods layout: size fields left at 0, thread infos written unless told not to."""
    if mode not in ("long-running", "all"):
        raise ValueError(f"mode must be 'long-running' or 'all', not {mode!r}")
    if thread_names is None:
        thread_names = mode == "all"
    ev = trace.events
    if ev.wall is None:
        raise ValueError("a low-overhead dump needs the wall clock; this trace has none")
    if not 0 < block_events < 1 << 24:
        raise ValueError("block_events must be in 1 .. 2^24-1")
    order = np.argsort(ev.thread, kind="stable")
    thread = ev.thread[order].astype(np.int64)
    is_exit = ev.action[order] != 0
    time = ev.wall[order].astype(np.int64) + np.int64(base_ns)
    method_id = trace.methods.id[ev.method[order]].astype(np.uint64)
    n = len(order)
    # Blocks: runs of one thread, cut every block_events events.
    new_thread = np.r_[True, thread[1:] != thread[:-1]] if n else np.zeros(0, bool)
    run_start = np.flatnonzero(new_thread)
    pos_in_run = np.arange(n) - np.repeat(run_start, np.diff(np.r_[run_start, n]))
    first = new_thread | (pos_in_run % block_events == 0)
    block = np.cumsum(first) - 1
    starts = np.flatnonzero(first)
    counts = np.diff(np.r_[starts, n])
    # Deltas restart at 0 in every block.
    ta = (time << 1) | is_exit.astype(np.int64)
    ta_delta = ta - np.r_[np.int64(0), ta[:-1]]
    ta_delta[starts] = ta[starts]
    entry = ~is_exit
    e_idx = np.flatnonzero(entry)
    e_ids = method_id[e_idx]
    e_block = block[e_idx]
    m_delta = e_ids - np.r_[np.uint64(0), e_ids[:-1]]
    e_first = np.r_[True, e_block[1:] != e_block[:-1]] if len(e_idx) else np.zeros(0, bool)
    m_delta[e_first] = e_ids[e_first]
    # Stream order: each event's time LEB, then its method LEB when it is an entry.
    width = 1 + entry.astype(np.int64)
    at = np.cumsum(width) - width
    values = np.empty(int(width.sum()), dtype=np.uint64)
    values[at] = ta_delta.view(np.uint64)
    values[at[e_idx] + 1] = m_delta
    raw, lengths = encode(values, np.ones(len(values), dtype=bool))
    leb_block = np.repeat(block, width)
    block_bytes = np.bincount(leb_block, weights=lengths, minlength=len(starts)).astype(np.int64)
    ends = np.cumsum(block_bytes)
    out = bytearray()
    tids = trace.threads.id
    for b in range(len(starts)):
        tid = int(tids[thread[starts[b]]]) & 0xFFFFFFFF
        out += struct.pack("<BI", 2, tid) + int(counts[b]).to_bytes(3, "little")
        out += struct.pack("<I", int(block_bytes[b]) if mode == "long-running" else 0)
        out += raw[ends[b] - block_bytes[b] : ends[b]].tobytes()
    if thread_names:
        for row in range(len(trace.threads)):
            name = trace.threads.name[row]
            if name is not None:
                raw_name = name.encode("utf-8", "surrogateescape")
                out += struct.pack("<BIH", 0, int(tids[row]) & 0xFFFFFFFF, len(raw_name))
                out += raw_name
    me = trace.methods
    for row in range(len(me)):
        fields = (me.class_name[row], me.name[row], me.signature[row], me.source_file[row])
        text = ("\t".join(fields) + "\n").encode("utf-8", "surrogateescape")
        out += struct.pack("<BQH", 1, int(me.id[row]), len(text)) + text
    return bytes(out)


def write_lowoverhead(trace: Trace, out: BinaryIO, **options: object) -> None:
    """Write the dump of `trace` to a binary stream (options as `dump_bytes`)."""
    out.write(dump_bytes(trace, **options))  # type: ignore[arg-type]
