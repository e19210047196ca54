"""Writes a trace as Android 16's low-overhead method dump (format.md §1.8), in either mode and
any layout of ART's history (`eras.py`), for the reader's tests and `traceview convert --to
low-overhead`. `art.py` instead simulates ART recording a run (rings, the long-running
filter, flushes, the dump's packet order); `anr.py` wraps a dump into an ANR report.

Per thread, events go in blocks of at most `block_events` (`encode.blocks`), then, in
`DumpThreadMethodInfo`'s order, thread infos (when `thread_names`) and one method info per
method row. Long-running: each event the SLEB128 delta of `time << 1 | is_exit`, an entry's
method delta after it; times are the wall clock plus `base_ns`, in the era's unit. All
methods (`mode="all"`): no times, one SLEB128 per event as ART's `DumpBuffer` (method ids
renumbered when one is odd: ART's words are aligned pointers, an odd one would read as an
exit). Exits carry no method; unrolls become exits.
"""

from __future__ import annotations

from typing import BinaryIO

import numpy as np
import numpy.typing as npt

from traceview.model import Trace
from traceview.writer.lowoverhead import encode
from traceview.writer.lowoverhead.eras import ERAS, Era

__all__ = ["ERAS", "Era", "dump_bytes", "write_lowoverhead"]

BASE_NS = 86_400 * 10**9  # a day of uptime: absolute monotonic times, like a device's
COUNTER_HZ = 24_576_000
I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]


def dump_bytes(
    trace: Trace,
    *,
    block_events: int = 4096,
    base_ns: int = BASE_NS,
    thread_names: bool | None = None,
    mode: str = "long-running",
    era: str = "newest",
    summary: bool | None = None,
    size_fill: bytes = bytes(4),
) -> bytes:
    """The dump of `trace` (which needs a wall column) as bytes. `era` picks the layout
    (default: the newest, whose summary packet says the times are ns); `summary` adds or
    drops the summary packet after the blocks (default: in a long-running dump of an era that
    has one; its end time is the last event's); `size_fill` is what all-methods blocks'
    unwritten size bytes hold."""
    if mode not in ("long-running", "all"):
        raise ValueError(f"mode must be 'long-running' or 'all', not {mode!r}")
    layout = ERAS[era]
    if thread_names is None:
        thread_names = mode == "all" or layout.long_running_threads
    ev = trace.events
    if ev.wall is None:
        raise ValueError("a low-overhead dump needs the wall clock; this trace has none")
    if not 0 < block_events < 1 << 24:
        raise ValueError("block_events must be in 1 .. 2^24-1")
    order = np.argsort(ev.thread, kind="stable")
    thread = ev.thread[order].astype(np.int64)
    is_exit = ev.action[order] != 0
    ids = _ids(trace, mode)
    method = ids[ev.method[order]]
    n = len(order)
    new_thread = np.r_[True, thread[1:] != thread[:-1]] if n else np.zeros(0, bool)
    run_start = np.flatnonzero(new_thread)
    pos_in_run = np.arange(n) - np.repeat(run_start, np.diff(np.r_[run_start, n]))
    block = np.cumsum(new_thread | (pos_in_run % block_events == 0)) - 1
    starts = np.flatnonzero(np.r_[True, block[1:] != block[:-1]]) if n else run_start
    counts = np.diff(np.r_[starts, n]).tolist()
    tids = [int(trace.threads.id[thread[s]]) for s in starts]
    if mode == "all":
        words = np.where(is_exit, np.uint64(1), method)
        values, value_block = encode.timeless_lebs(block, words), block
        size: bytes | None = size_fill
    else:
        time = _in_unit(ev.wall[order].astype(np.int64) + np.int64(base_ns), layout.unit)
        ta = (time << 1) | is_exit.astype(np.int64) if not layout.method_first else time & ~1
        values = encode.timed_lebs(block, ta, is_exit, method, layout)
        value_block = np.repeat(block, 1 + (~is_exit).astype(np.int64))
        size = None
    out = encode.blocks(tids, counts, value_block, values, layout.header, size)
    if summary if summary is not None else layout.summary and mode == "long-running":
        end = int(ev.wall.max()) + base_ns if n else base_ns
        out += encode.summary(end, end + 5_000_000)
    named = [
        (int(trace.threads.id[r]), name)
        for r, name in enumerate(trace.threads.name)
        if name is not None and thread_names
    ]
    me = trace.methods
    lines = [
        (
            int(ids[r]),
            "\t".join((me.class_name[r], me.name[r], me.signature[r], me.source_file[r])) + "\n",
        )
        for r in range(len(me))
    ]
    return out + encode.infos(named, lines, layout)


def _ids(trace: Trace, mode: str) -> U64:
    """Method ids as written: the trace's, or (all methods, when one is odd or below 2)
    aligned pointer-like values."""
    ids = trace.methods.id.astype(np.uint64)
    if mode == "all" and len(ids) and (bool((ids & np.uint64(1)).any()) or int(ids.min()) < 2):
        return np.uint64(0x7000_0000) + np.arange(len(ids), dtype=np.uint64) * np.uint64(16)
    return ids


def _in_unit(ns: I64, unit: str) -> I64:
    """Absolute ns as the era wrote them: ns, µs (the scale bug) or counter ticks."""
    if unit == "us":
        return ns // 1000
    if unit == "ticks":
        out: I64 = (ns // 1000) * COUNTER_HZ // 1_000_000
        return out
    return ns


def write_lowoverhead(trace: Trace, out: BinaryIO, **options: object) -> None:
    """Write the dump of `trace` to a binary stream (options as `dump_bytes`)."""
    out.write(dump_bytes(trace, **options))  # type: ignore[arg-type]
