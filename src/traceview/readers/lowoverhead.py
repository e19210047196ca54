"""Reads Android 16's low-overhead method dumps (format.md §1.8), in both modes, into a `Trace`.

The file has no header: a sequence of records, each opened by a type byte —
`2` entry block: `u4 tid | u3 n | u4 size`, then `size` bytes holding `n` events;
`1` method info: `u8 ArtMethod* | u2 len | class\\tname\\tsignature\\tsource\\n`;
`0` thread info: `u4 tid | u2 len | name` (ART omits them in long-running dumps).
An event is the SLEB128 delta of `time_ns << 1 | is_exit`; an entry is followed by the SLEB128
delta of its `ArtMethod*`; both running values restart at 0 in every block. Exits carry no
method: the reader pairs each exit with the entry it closes (per thread, by stack level).

Two modes share the layout. "Long-running methods" writes every block's size; "all methods"
(ART's `DumpBuffer`) leaves the u4 size unwritten (zero or what the buffer held), so a block's
end is found by decoding its `n` events. The mode comes from the bytes: the first block with
events has a size field equal to its decoded length only in long-running dumps. It is recorded
as `options["mode"]` ("long-running-methods" / "all-methods") and `entry_format`.

What a long-running dump holds, and the diagnostics say: ART keeps only calls that ran for at least
2^23 timestamp-counter ticks (shorter pairs are erased from the buffer); the methods on the
stack when tracing began are entered at that moment, but a stack deeper than the buffer's
half is cut, and a thread's blocks may be flushed out of order, so exits without entries are
expected. Times are on the wall clock (CLOCK_MONOTONIC ns), made relative to the first event.

Decoding is vectorised: the LEBs of all blocks are decoded at once (`v2/leb128.decode`), and
which LEB is a time and which a method — a running parity, since only entries are followed by
a method — comes from a prefix scan over per-LEB state transitions, never a per-event loop.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

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
from traceview.readers.source import Source
from traceview.readers.v2.leb128 import decode, segmented_cumsum

__all__ = ["LONG_RUNNING_TICKS", "read", "sniff"]

ENTRIES, METHOD_INFO, THREAD_INFO = 2, 1, 0
BLOCK_HEADER, METHOD_HEADER, THREAD_HEADER = 12, 11, 7
LONG_RUNNING_TICKS = 1 << 23  # ART's kLongRunningMethodThreshold, in timestamp-counter ticks
UNKNOWN_METHOD = "[entered before the dump]"

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]


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
            return _plausible_unsized(head, pos + BLOCK_HEADER, n)
        pos += BLOCK_HEADER  # an empty block: size 0, or unwritten in an all-methods dump
    if len(head) >= pos + METHOD_HEADER and head[pos] == METHOD_INFO:
        (length,) = struct.unpack_from("<H", head, pos + 9)
        text = head[pos + METHOD_HEADER : pos + METHOD_HEADER + length]
        return length > 0 and text.count(b"\t") >= 2
    return pos > 0 and pos >= len(head)


def _plausible_unsized(head: bytes, start: int, n: int) -> bool:
    """An all-methods block (size unwritten): its events decode within `head` and are followed
    by another record type or the end of `head`; a block longer than `head` must have a first
    event time of at least a second of uptime (ART's timestamps are CLOCK_MONOTONIC ns)."""
    buf = np.frombuffer(head, dtype=np.uint8)
    end = _block_end(buf, start, n)
    if end is None:
        lebs = decode(buf[start : start + 10])
        first = lebs.signed()[:1]
        return bool(len(first)) and int(first[0]) >> 1 >= 10**9
    return end == len(head) or head[end] in (ENTRIES, METHOD_INFO, THREAD_INFO)


@dataclass
class _Walk:
    """The records found by one pass over the file."""

    tids: list[int] = field(default_factory=list)  # per block
    counts: list[int] = field(default_factory=list)  # events the block header announces
    spans: list[tuple[int, int]] = field(default_factory=list)  # payload [start, end)
    method_ids: list[int] = field(default_factory=list)
    method_texts: list[bytes] = field(default_factory=list)
    thread_names: dict[int, str] = field(default_factory=dict)
    diags: list[Diagnostic] = field(default_factory=list)
    sizes: bool = True  # the blocks' size fields are written (long-running mode)


def _block_end(buf: npt.NDArray[np.uint8], start: int, n: int) -> int | None:
    """Where the `n` events from `start` end (an all-methods block has no size), or None when
    the file ends first. Decodes a window of LEBs at once, widened until it holds n events."""
    width = 8 * n + 16
    while True:
        stop = min(start + width, len(buf))
        lebs = decode(buf[start:stop])
        ends = lebs.start + lebs.length
        good = ends <= stop - start
        value = lebs.signed()[good]
        first = np.zeros(len(value), dtype=bool)
        first[:1] = True
        before = _states_before((value & 1).astype(np.uint8), first)
        times = np.flatnonzero(before < 2)
        if len(times) > n:  # the (n+1)-th time LEB starts where the block ends
            return start + int(lebs.start[good][times[n]])
        if len(times) == n and n:
            last = int(times[-1])
            is_exit = (int(before[last]) ^ int(value[last] & 1)) == 1
            closes = last if is_exit else last + 1
            if closes < len(value):
                return start + int(ends[good][closes])
        if stop == len(buf):
            return None
        width *= 4


def _sizes_written(buf: npt.NDArray[np.uint8], view: memoryview) -> bool:
    """The mode, from the first block with events: its size field equals its decoded length in
    a long-running dump; an all-methods dump (ART's `DumpBuffer`) leaves it unwritten (zero or
    whatever the buffer held). A cut first block keeps the size field when it is plausible."""
    pos, size = 0, len(view)
    while pos + BLOCK_HEADER <= size and view[pos] == ENTRIES:
        _, n3, length = struct.unpack_from("<I3sI", view, pos + 1)
        n, length = int.from_bytes(n3, "little"), int(length)
        start = pos + BLOCK_HEADER
        if n == 0:
            pos = start
            if length:  # an empty block's size is 0 when written
                return False
            continue
        end = _block_end(buf, start, n)
        if end is not None:
            return end - start == length
        return n <= length <= 20 * n and start + length > size
    return True


def _walk(data: bytes | memoryview) -> _Walk:
    out = _Walk()
    view = memoryview(data)
    buf = np.frombuffer(data, dtype=np.uint8)
    out.sizes = _sizes_written(buf, view)
    pos, size = 0, len(view)
    need = {ENTRIES: BLOCK_HEADER, METHOD_INFO: METHOD_HEADER, THREAD_INFO: THREAD_HEADER}
    while pos < size:
        kind = view[pos]
        if kind not in need:
            out.diags.append(
                Diagnostic(
                    "unknown-record",
                    f"record type {kind} is none of 0 (thread), 1 (method), 2 (entries); "
                    f"the {size - pos} bytes from here were skipped",
                    offset=pos,
                )
            )
            break
        if pos + need[kind] > size:
            out.diags.append(
                Diagnostic("truncated-record", "the file ends inside a record header", pos)
            )
            break
        if kind == ENTRIES:
            tid, n3, length = struct.unpack_from("<I3sI", view, pos + 1)
            start = pos + BLOCK_HEADER
            if not out.sizes:  # all methods: the size field is garbage; decode to the end
                n = int.from_bytes(n3, "little")
                found = _block_end(buf, start, n) if n else start
                length = size - start if found is None else found - start
                if found is None:
                    out.diags.append(
                        Diagnostic(
                            "truncated-block",
                            f"the file ends inside an entry block of {n} events "
                            "(all-methods dump: no size field); its complete events were read",
                            offset=pos,
                        )
                    )
            end = min(start + length, size)
            if start + length > size:
                out.diags.append(
                    Diagnostic(
                        "truncated-block",
                        f"the file ends {start + length - size} bytes into an entry block; "
                        "its complete events were read",
                        offset=pos,
                    )
                )
            out.tids.append(tid)
            out.counts.append(int.from_bytes(n3, "little"))
            out.spans.append((start, end))
            pos = start + length
        else:
            if kind == METHOD_INFO:
                (ident, length) = struct.unpack_from("<QH", view, pos + 1)
            else:
                (ident, length) = struct.unpack_from("<IH", view, pos + 1)
            start = pos + need[kind]
            if start + length > size:
                out.diags.append(
                    Diagnostic("truncated-record", "the file ends inside an info record", pos)
                )
                break
            text = bytes(view[start : start + length])
            if kind == METHOD_INFO:
                out.method_ids.append(ident)
                out.method_texts.append(text)
            else:
                out.thread_names[ident] = text.decode("utf-8", "surrogateescape")
            pos = start + length
    return out


# Per-LEB state transitions. A state is (the next LEB is a time) with the running time-action
# value even (0) or odd (1), or (the next LEB is a method) (2, the value is then even). After a
# time LEB of parity v the value's parity flips by v: odd (an exit) -> a time LEB follows,
# even (an entry) -> its method LEB; after a method LEB a time LEB follows.
# A transition is a function of the 3 states, coded f(0)*9 + f(1)*3 + f(2) (27 codes), so a
# prefix scan composes codes through one 27x27 table instead of gathering per state.
_EVEN, _ODD = (2, 1, 0), (1, 2, 0)


def _code(f: tuple[int, int, int]) -> int:
    return f[0] * 9 + f[1] * 3 + f[2]


def _compose_table() -> npt.NDArray[np.uint8]:
    """`table[g, f]` = the code of g after f."""
    funcs = [(c // 9, c // 3 % 3, c % 3) for c in range(27)]
    out = np.zeros((27, 27), dtype=np.uint8)
    for gc, g in enumerate(funcs):
        for fc, f in enumerate(funcs):
            out[gc, fc] = _code((g[f[0]], g[f[1]], g[f[2]]))
    return out


_COMPOSE = _compose_table()
# Per LEB parity: its transition; at a block start: the constant from state 0.
_STEP = np.array([_code(_EVEN), _code(_ODD)], dtype=np.uint8)
_RESET = np.array([_code((_EVEN[0],) * 3), _code((_ODD[0],) * 3)], dtype=np.uint8)


def _states_before(
    parity: npt.NDArray[np.uint8], first: npt.NDArray[np.bool_]
) -> npt.NDArray[np.uint8]:
    """The state before each LEB, every block starting in (time, even): an inclusive prefix
    scan (Hillis-Steele doubling) of the per-LEB transitions, as long as the longest block."""
    n = len(parity)
    code = np.where(first, _RESET[parity], _STEP[parity]).astype(np.uint8)
    starts = np.flatnonzero(first)
    longest = int(np.diff(np.r_[starts, n]).max()) if n else 0
    k = 1
    while k < longest:
        code[k:] = _COMPOSE[code[k:], code[:-k]]
        k *= 2
    after = code // 9  # each prefix applied to state 0
    before = np.empty(n, dtype=np.uint8)
    if n:
        before[0] = 0
        before[1:] = after[:-1]
        before[first] = 0
    return before


@dataclass
class _Events:
    block: I64  # block index per event
    time: I64  # absolute ns
    exit: npt.NDArray[np.bool_]
    method_id: U64  # per event (0 for exits)


def _decode(data: bytes | memoryview, walk: _Walk) -> _Events:
    """Every event of every block (vectorised), counted against the block headers."""
    buf = np.frombuffer(data, dtype=np.uint8)
    parts = [buf[a:b] for a, b in walk.spans]
    payload = np.concatenate(parts) if parts else np.zeros(0, np.uint8)
    lengths = np.array([b - a for a, b in walk.spans], dtype=np.int64)
    offsets = np.cumsum(lengths) - lengths
    lebs = decode(payload)
    # A LEB must end inside the block it starts in (a cut block's last LEB does not).
    block = np.searchsorted(offsets, lebs.start, side="right") - 1
    ends = lebs.start + lebs.length
    inside = ends <= (offsets + lengths)[block] if len(block) else np.zeros(0, bool)
    keep = inside & ~lebs.overlong
    value = lebs.signed()[keep]
    block = block[keep]
    first = np.ones(len(block), dtype=bool)
    first[1:] = block[1:] != block[:-1]
    parity = (value & 1).astype(np.uint8)
    before = _states_before(parity, first)
    is_time = before < 2
    # Event i = the time LEB; a method LEB follows an entry's.
    t_idx = np.flatnonzero(is_time)
    m_idx = np.flatnonzero(~is_time)
    t_block = block[t_idx]
    t_counts = np.bincount(t_block, minlength=len(lengths)).astype(np.int64)
    m_counts = np.bincount(block[m_idx], minlength=len(lengths)).astype(np.int64)
    time_action = segmented_cumsum(value[t_idx].view(np.uint64), t_counts).view(np.int64)
    method = segmented_cumsum(value[m_idx].view(np.uint64), m_counts)
    exit_ = (time_action & 1).astype(bool)
    # An entry whose method LEB is missing (the block was cut after its time LEB) is dropped.
    entry_pos = np.flatnonzero(~exit_)
    has_method = np.zeros(len(t_idx), dtype=bool)
    followed = np.searchsorted(m_idx, t_idx[entry_pos] + 1)
    ok = followed < len(m_idx)
    ok[ok] = m_idx[followed[ok]] == t_idx[entry_pos[ok]] + 1
    has_method[entry_pos[ok]] = True
    method_id = np.zeros(len(t_idx), dtype=np.uint64)
    method_id[entry_pos[ok]] = method[followed[ok]]
    valid = exit_ | has_method
    announced = np.array(walk.counts, dtype=np.int64)
    got = np.bincount(t_block[valid], minlength=len(lengths))
    short = int(np.count_nonzero(got != announced))
    if short:
        walk.diags.append(
            Diagnostic(
                "block-count-mismatch",
                f"{short} entry block(s) decode to a different number of events than their "
                f"header says ({int(announced.sum())} announced, {int(got.sum())} read)",
                count=short,
            )
        )
    return _Events(
        t_block[valid].astype(np.int64),
        time_action[valid] >> 1,
        exit_[valid],
        method_id[valid],
    )


def _methods(walk: _Walk, used: U64) -> MethodTable:
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
    walk = _walk(data)
    if not walk.spans and not walk.method_ids:
        raise TraceFormatError(
            "no entry block or method info in this low-overhead dump",
            offset=0,
            expected="a record of type 2 or 1",
            found=f"{len(data)} bytes",
        )
    ev = _decode(data, walk)
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
