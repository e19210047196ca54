"""Reads Android 16's low-overhead method dumps (format.md §1.8), in both modes, into a `Trace`.

The file has no header: a sequence of records, each opened by a type byte —
`2` entry block: `u4 tid | u3 n | u4 size`, then `size` bytes holding `n` events;
`1` method info: `u8 ArtMethod* | u2 len | class\\tname\\tsignature\\tsource\\n`;
`0` thread info: `u4 tid | u2 len | name` (written before the method infos).
An event is the SLEB128 delta of `time_ns << 1 | is_exit`; an entry is followed by the SLEB128
delta of its `ArtMethod*`; both running values restart at 0 in every block. Exits carry no
method: the reader pairs each exit with the entry it closes (per thread, by stack level).

Two modes share the layout. "Long-running methods" writes every block's size; "all methods"
(ART's `DumpBuffer`) leaves the u4 size unwritten (zero or what the buffer held), so a block's
end is found by decoding its `n` events (`scan.block_end`). The mode comes from the bytes: the
first block with events has a size equal to its decoded length only in long-running dumps
(`walk.sizes_written`). It is recorded as `options["mode"]` ("long-running-methods" /
"all-methods") and `entry_format` ("long-running" / "all"). ART's stored `DumpBuffer` writes
no times at all (one delta of `ArtMethod* | action` per event); such a dump is recognised and
refused in one line rather than misread.

What a long-running dump holds, and the diagnostics say: ART keeps only calls that ran for at
least 2^23 timestamp-counter ticks (shorter pairs are erased from the buffer); the methods on
the stack when tracing began are entered at that moment, but a stack deeper than the buffer's
half is cut, and a thread's blocks may be flushed out of order, so exits without entries are
expected. Times are on the wall clock (CLOCK_MONOTONIC ns), made relative to the first event.

Decoding is vectorised (`walk.decode_events`): the LEBs of all blocks are decoded at once, and
which LEB is a time and which a method comes from the prefix scan in `scan.py`, never a
per-event loop.
"""

from __future__ import annotations

import struct

import numpy as np
import numpy.typing as npt

from traceview.model import (
    Diagnostic,
    EventTable,
    MethodTable,
    Trace,
    TraceFormatError,
    thread_index_dtype,
)
from traceview.readers.assemble import About, MethodFields, assemble, method_table, thread_table
from traceview.readers.lowoverhead.walk import (
    BLOCK_HEADER,
    ENTRIES,
    I64,
    LONG_RUNNING_TICKS,
    METHOD_HEADER,
    METHOD_INFO,
    U64,
    UNKNOWN_METHOD,
    Walk,
    decode_events,
    one_leb_per_event,
    plausible_unsized,
    walk_file,
)
from traceview.readers.source import Source

__all__ = ["LONG_RUNNING_TICKS", "UNKNOWN_METHOD", "read", "sniff"]


def sniff(head: bytes) -> bool:
    """True when `head` starts like a low-overhead dump: an entry block whose size fits, or
    (all methods, size unwritten) whose events decode; or a method info whose text is tab
    separated (empty blocks, which a thread with nothing to dump writes, are skipped)."""
    pos = 0
    while len(head) >= pos + BLOCK_HEADER and head[pos] == ENTRIES:
        n = int.from_bytes(head[pos + 5 : pos + 8], "little")
        (size,) = struct.unpack_from("<I", head, pos + 8)
        if n:
            if n <= int(size) <= 20 * n:
                return True
            return plausible_unsized(head, pos + BLOCK_HEADER, n)
        pos += BLOCK_HEADER  # an empty block: size 0, or unwritten in an all-methods dump
    if len(head) >= pos + METHOD_HEADER and head[pos] == METHOD_INFO:
        (length,) = struct.unpack_from("<H", head, pos + 9)
        text = head[pos + METHOD_HEADER : pos + METHOD_HEADER + length]
        return length > 0 and text.count(b"\t") >= 2
    return pos > 0 and pos >= len(head)


def _methods(walk: Walk, used: U64) -> MethodTable:
    """The method table: declared infos (the first of a repeated id), then a `(0x…)` row per
    id used but never declared."""
    fields, declared, seen = MethodFields(), [], set()
    for ident, raw in zip(walk.method_ids, walk.method_texts, strict=True):
        if ident in seen:
            continue
        seen.add(ident)
        parts = raw.decode("utf-8", "surrogateescape").rstrip("\n").split("\t")
        parts += [""] * (4 - len(parts))
        fields.add(parts[0], parts[1], parts[2], parts[3], -1)
        declared.append(ident)
    unknown = np.setdiff1d(np.unique(used), np.array(declared, dtype=np.uint64))
    if len(unknown):
        walk.diags.append(
            Diagnostic(
                "unknown-method",
                f"{len(unknown)} method id(s) are used by events but have no method info "
                "(a dump cut before its method records)",
                count=len(unknown),
            )
        )
    return method_table(declared, fields, unknown)


def _pair_exits(thread: I64, is_exit: npt.NDArray[np.bool_]) -> I64:
    """For each event (sorted by thread, then time), the index of the entry an exit closes,
    -1 for exits without one (and for entries). Per thread, an entry opens level d (the depth
    after it), an exit closes level d (the depth before it); the exit closes the latest
    earlier event of its level when that is an entry."""
    n = len(thread)
    match = np.full(n, -1, dtype=np.int64)
    if n == 0:
        return match
    step = np.where(is_exit, -1, 1).astype(np.int64)
    starts = np.flatnonzero(np.r_[True, thread[1:] != thread[:-1]])
    depth_after = np.cumsum(step)
    base = np.repeat(depth_after[starts] - step[starts], np.diff(np.r_[starts, n]))
    depth_after = depth_after - base
    level = np.where(is_exit, depth_after + 1, depth_after)
    order = np.lexsort((np.arange(n), level, thread))
    prev = np.r_[-1, order[:-1]]
    same = np.r_[False, (thread[order][1:] == thread[order][:-1])]
    same &= np.r_[False, (level[order][1:] == level[order][:-1])]
    closes = same & is_exit[order] & ~is_exit[np.maximum(prev, 0)]
    match[order[closes]] = prev[closes]
    return match


def read(src: Source | bytes | memoryview, *, source: str | None = None) -> Trace:
    """Read a whole low-overhead dump."""
    data = src.whole() if isinstance(src, Source) else src
    walk = walk_file(data)
    damaged = {"unknown-record", "truncated-block", "truncated-record"}
    if not walk.sizes and damaged & {d.code for d in walk.diags}:
        view = memoryview(data)
        if one_leb_per_event(np.frombuffer(view, dtype=np.uint8), view):
            raise TraceFormatError(
                "an Android 16 all-methods dump without timestamps (one method|action delta "
                "per event, as ART's DumpBuffer writes): not supported yet",
                offset=0,
                expected="entry blocks whose events carry times",
                found="blocks of one LEB per event",
            )
    if not walk.spans and not walk.method_ids:
        raise TraceFormatError(
            "no entry block or method info in this low-overhead dump",
            offset=0,
            expected="a record of type 2 or 1",
            found=f"{len(data)} bytes",
        )
    ev = decode_events(data, walk)
    if len(ev.time) == 0 and not walk.method_ids:
        raise TraceFormatError(
            "this Android 16 low-overhead dump holds no complete event",
            offset=0,
            expected="an entry block with its events",
            found="; ".join(d.message for d in walk.diags) or "empty blocks",
        )
    methods = _methods(walk, ev.method_id[~ev.exit])
    # Threads in order of first appearance (blocks, then thread infos of threads without any).
    tids = np.array(walk.tids, dtype=np.int64)
    seen = np.r_[tids, np.array(list(walk.thread_names), dtype=np.int64)]
    unique, first_at = np.unique(seen, return_index=True)
    thread_ids = seen[np.sort(first_at)]
    threads = thread_table(thread_ids.tolist(), [walk.thread_names.get(int(t)) for t in thread_ids])
    rank = np.empty(len(unique), dtype=np.int64)
    rank[np.argsort(first_at)] = np.arange(len(unique))
    block_row = rank[np.searchsorted(unique, tids)]
    thread_row = block_row[ev.block] if len(ev.block) else ev.block
    # A thread's blocks in time order (a dump to a file writes the last blocks first).
    # Events are grouped by block in file order, each block's first event its earliest.
    block_first = np.full(len(walk.spans), np.iinfo(np.int64).max, dtype=np.int64)
    starts = np.flatnonzero(np.r_[len(ev.block) > 0, ev.block[1:] != ev.block[:-1]])
    block_first[ev.block[starts]] = ev.time[starts]
    order = np.lexsort((np.arange(len(ev.time)), block_first[ev.block], thread_row))
    thread_row, time = thread_row[order], ev.time[order]
    is_exit, method_id = ev.exit[order], ev.method_id[order]
    backwards = np.r_[False, (time[1:] < time[:-1]) & (thread_row[1:] == thread_row[:-1])]
    if backwards.any():
        walk.diags.append(
            Diagnostic(
                "time-backwards",
                f"{int(backwards.sum())} event(s) are earlier than the event before them on "
                "their thread; clamped",
                count=int(backwards.sum()),
            )
        )
        time = _running_max(time, thread_row)
    sorter = np.argsort(methods.id)
    found = np.searchsorted(methods.id, method_id, sorter=sorter)
    method = np.zeros(len(method_id), dtype=np.int32)  # exits: set below
    if len(sorter):
        method = sorter[np.minimum(found, len(sorter) - 1)].astype(np.int32)
    match = _pair_exits(thread_row.astype(np.int64), is_exit)
    closed = match >= 0
    method[closed] = method[match[closed]]
    orphans = is_exit & ~closed
    if orphans.any():
        methods = _with_unknown(methods)
        method[orphans] = len(methods) - 1
        walk.diags.append(
            Diagnostic(
                "exit-without-entry",
                f"{int(orphans.sum())} exit(s) close calls whose entry is not in the dump "
                "(entered before tracing began on a stack the dump cut, or flushed earlier); "
                f"they are shown as {UNKNOWN_METHOD} from the thread's first event",
                count=int(orphans.sum()),
            )
        )
    origin = int(time.min()) if len(time) else 0
    if walk.sizes:
        walk.diags.insert(
            0,
            Diagnostic(
                "long-running-methods-only",
                "Android 16 low-overhead dump of long-running methods: only calls that ran for "
                f"at least 2^23 timestamp-counter ticks ({LONG_RUNNING_TICKS:,}) are present; "
                "shorter calls were discarded, so exclusive times include them and call counts "
                "are not complete",
            ),
        )
    events = EventTable(
        thread=thread_row.astype(thread_index_dtype(len(threads))),
        method=method,
        action=is_exit.astype(np.uint8),
        cpu=None,
        wall=(time - origin).astype(np.int64),
    )
    about = About(
        variant="low-overhead",
        version=0,
        clock="wall",
        start_time_us=origin // 1000,
        elapsed_ns=int(time.max()) - origin if len(time) else 0,
        options={"mode": "long-running-methods" if walk.sizes else "all-methods"},
        entry_format="long-running" if walk.sizes else "all",
    )
    return assemble(about, threads, methods, events, walk.diags, source)


def _running_max(time: I64, thread: npt.NDArray[np.integer]) -> I64:
    """`time` made non-decreasing within each thread's run (rows are grouped by thread): one
    running maximum over the times lifted by thread row (a span apart)."""
    low = int(time.min())
    span = np.int64(int(time.max()) - low + 1)
    lift = thread.astype(np.int64) * span
    out: I64 = np.maximum.accumulate(time - low + lift) - lift + low
    return out


def _free_id(ids: U64) -> int:
    """An id no row has: above the largest, else the first gap (ids are any u64 values)."""
    if not len(ids):
        return 1
    ordered = np.sort(ids)
    if int(ordered[-1]) < (1 << 64) - 1:
        return int(ordered[-1]) + 1
    if int(ordered[0]) > 0:
        return 0
    gaps = np.flatnonzero(np.diff(ordered) > 1)
    return int(ordered[gaps[0]]) + 1  # 2^64 ids would not fit in memory: a gap exists


def _with_unknown(methods: MethodTable) -> MethodTable:
    """The table plus one undeclared row standing for the methods of orphan exits."""
    new_id = _free_id(methods.id)
    return MethodTable(
        id=np.r_[methods.id, np.uint64(new_id)].astype(np.uint64),
        class_name=(*methods.class_name, UNKNOWN_METHOD),
        name=(*methods.name, ""),
        signature=(*methods.signature, ""),
        source_file=(*methods.source_file, ""),
        line=np.r_[methods.line, np.int32(-1)].astype(np.int32),
        declared=np.r_[methods.declared, False].astype(bool),
    )
