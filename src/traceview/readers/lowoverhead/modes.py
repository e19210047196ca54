"""The two modes of a low-overhead dump turned into a `Trace` (format.md §1.8).

Long-running methods: times (converted to ns from the unit `timed.time_unit` finds), each
thread's blocks in time order (a dump to a file writes the flushed blocks last), backwards
steps clamped. All methods: no times, so the axis is the order of events (`Header.axis =
"order"`): each event is placed at the number of calls its thread entered before it, in the
order the dump holds them (entries 0, 1, 2, ...; an exit with the next entry), so a call spans
the calls of its subtree, itself included, and its self is 1: trees and flame graphs come out
by count. A wrapped ring's oldest slot is paired apart (`timeless.ring_seams`).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from traceview.model import Diagnostic, EventTable, Trace, thread_index_dtype
from traceview.readers.assemble import About, assemble
from traceview.readers.lowoverhead.build import event_methods, methods_of, threads_of
from traceview.readers.lowoverhead.packets import Packets
from traceview.readers.lowoverhead.timed import decode_timed, time_unit
from traceview.readers.lowoverhead.timeless import decode_timeless, ring_seams

__all__ = ["all_methods", "long_running"]

I64 = npt.NDArray[np.int64]


def long_running(data: bytes | memoryview, found: Packets, source: str | None) -> Trace:
    """A long-running-methods dump."""
    diags = found.diags
    ev = decode_timed(data, found.blocks, diags)
    threads, block_row = threads_of(found)
    thread_row = block_row[ev.block] if len(ev.block) else ev.block
    block_first = np.full(len(found.blocks), np.iinfo(np.int64).max, dtype=np.int64)
    starts = np.flatnonzero(np.r_[len(ev.block) > 0, ev.block[1:] != ev.block[:-1]])
    block_first[ev.block[starts]] = ev.value[starts]
    order = np.lexsort((np.arange(len(ev.value)), block_first[ev.block], thread_row))
    thread_row, time = thread_row[order], ev.value[order]
    is_exit, method_id = ev.exit[order], ev.method_id[order]
    unit = time_unit(found, time, is_exit, thread_row)
    time = _clamped(time, thread_row, diags)
    origin = int(time.min()) if len(time) else 0
    wall = unit.to_ns(time - origin)
    methods = methods_of(found, method_id[~is_exit], diags)
    methods, method = event_methods(
        methods,
        method_id,
        is_exit,
        thread_row,
        diags,
        "entered before tracing began on a stack deeper than ART records, or flushed earlier",
    )
    if unit.name != "ns":
        diags.insert(0, Diagnostic("time-unit", unit.why))
    threshold = (
        "2^22 counter ticks (≈171 ms at 24.576 MHz)"
        if unit.name == "ticks"
        else ("2^23 counter ticks (≈341 ms at 24.576 MHz; 2^22 before 2025-03-14)")
    )
    diags.insert(
        0,
        Diagnostic(
            "long-running-methods-only",
            "Android 16 low-overhead dump of long-running methods: only calls that ran for "
            f"at least {threshold} are present, with their callers and the calls open at the "
            "dump; shorter calls were discarded, so exclusive times include them and call "
            "counts are not complete",
        ),
    )
    origin_ns = (
        int(unit.to_ns(np.array([origin], dtype=np.int64))[0]) if unit.name == "ns" else None
    )
    about = About(
        variant="low-overhead",
        version=0,
        clock="wall",
        start_time_us=origin_ns // 1000 if origin_ns is not None else None,
        elapsed_ns=int(wall.max()) if len(wall) else 0,
        options=_options(found, "long-running-methods", unit.name),
        entry_format="long-running",
    )
    if found.summaries and unit.name == "ns":
        _, end, mono = found.summaries[0]
        about.end_ns = end - origin
        about.monotonic_offset_ns = origin + mono - end
    events = EventTable(
        thread=thread_row.astype(thread_index_dtype(len(threads))),
        method=method,
        action=is_exit.astype(np.uint8),
        cpu=None,
        wall=wall.astype(np.int64),
    )
    return assemble(about, threads, methods, events, diags, source)


def all_methods(data: bytes | memoryview, found: Packets, source: str | None) -> Trace:
    """An all-methods dump: the order of events is the axis."""
    diags = found.diags
    infos = bool(found.method_ids or found.thread_names)
    ev = decode_timeless(data, found.blocks, diags, infos=infos)
    seam = ring_seams(found.blocks, ev, diags)
    threads, block_row = threads_of(found)
    thread_row = block_row[ev.block] if len(ev.block) else ev.block
    order = np.argsort(thread_row, kind="stable")
    thread_row, seam = thread_row[order], seam[order]
    is_exit, method_id = ev.exit[order], ev.method_id[order]
    n = len(order)
    new_thread = np.r_[True, thread_row[1:] != thread_row[:-1]] if n else np.zeros(0, bool)
    starts = np.flatnonzero(new_thread)
    # the axis: calls entered before each event on its thread (an entry: its own number)
    entered = np.cumsum(~is_exit, dtype=np.int64) - (~is_exit)
    position = entered - np.repeat(entered[starts], np.diff(np.r_[starts, n]))
    segment = np.cumsum(new_thread | seam) - 1
    methods = methods_of(found, method_id[~is_exit], diags)
    methods, method = event_methods(
        methods,
        method_id,
        is_exit,
        segment,
        diags,
        "entered before the oldest event the ring kept, or across a seam of a wrapped ring",
    )
    diags.insert(
        0,
        Diagnostic(
            "no-times",
            "Android 16 low-overhead dump of all methods: ART records no times in this mode, so "
            "the axis is the order of events (each thread's calls numbered 0, 1, 2, ... as "
            "entered): calls, counts, nesting and trees are exact, durations do not exist. At "
            "most the last 2,047 events per thread are kept, and only arm64 compiled code records: "
            "small leaf methods, interpreted frames and inlined callees never appear",
        ),
    )
    about = About(
        variant="low-overhead",
        version=0,
        clock="wall",
        options=_options(found, "all-methods", "none"),
        entry_format="all",
        axis="order",
    )
    events = EventTable(
        thread=thread_row.astype(thread_index_dtype(len(threads))),
        method=method,
        action=is_exit.astype(np.uint8),
        cpu=None,
        wall=position,
    )
    return assemble(about, threads, methods, events, diags, source)


def _options(found: Packets, mode: str, unit: str) -> dict[str, str]:
    """What the header's options say about the dump: mode, layout, unit, summary values."""
    infos = {"binary": "binary infos", "text": "a text trailer", None: "no infos"}[found.trailer]
    out = {
        "mode": mode,
        "layout": f"{found.layout.header}-byte block headers, {infos}",
        "time-unit": unit,
    }
    if found.summaries:
        _, end, mono = found.summaries[0]
        out["end-time-ns"] = str(end)
        out["monotonic-ns"] = str(mono)
    return out


def _clamped(time: I64, thread: npt.NDArray[np.integer], diags: list[Diagnostic]) -> I64:
    """`time` made non-decreasing within each thread's run (said when it was not)."""
    backwards = np.r_[False, (time[1:] < time[:-1]) & (thread[1:] == thread[:-1])]
    if not backwards.any():
        return time
    count = int(backwards.sum())
    diags.append(
        Diagnostic(
            "time-backwards",
            f"{count} event(s) are earlier than the event before them on their thread; clamped",
            count=count,
        )
    )
    # one running maximum over ranks lifted by thread row (n apart: no overflow on any times)
    n = len(time)
    by_time = np.argsort(time, kind="stable")
    rank = np.empty(n, dtype=np.int64)
    rank[by_time] = np.arange(n, dtype=np.int64)
    lift = thread.astype(np.int64) * np.int64(n)
    out: I64 = time[by_time][np.maximum.accumulate(rank + lift) - lift]
    return out
