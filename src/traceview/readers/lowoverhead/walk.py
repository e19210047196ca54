"""One pass over a low-overhead dump's records (format.md §1.8): entry blocks (their payload
spans, sized by the size field in long-running dumps, by decoding in all-methods ones), thread
and method infos; then every event of every block decoded at once.

The mode is told from the bytes (`sizes_written`); ART's timeless all-methods layout is
recognised (`one_leb_per_event`) so `read` can refuse it in one line instead of misreading it.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from traceview.model import Diagnostic
from traceview.readers.lowoverhead.scan import block_end, states_before
from traceview.readers.v2.leb128 import decode, segmented_cumsum

__all__ = [
    "Events",
    "Walk",
    "decode_events",
    "one_leb_per_event",
    "plausible_unsized",
    "sizes_written",
    "walk_file",
]

ENTRIES, METHOD_INFO, THREAD_INFO = 2, 1, 0
BLOCK_HEADER, METHOD_HEADER, THREAD_HEADER = 12, 11, 7
LONG_RUNNING_TICKS = 1 << 23  # ART's kLongRunningMethodThreshold, in timestamp-counter ticks
UNKNOWN_METHOD = "[entered before the dump]"

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]


def plausible_unsized(head: bytes, start: int, n: int) -> bool:
    """An all-methods block (size unwritten): its events, timed or one LEB each (ART's
    timeless layout, refused by `read` with its own message), end within `head` before another
    record type or the end of `head`; a timed block longer than `head` must start with a time
    of at least a second of uptime (ART's timestamps are CLOCK_MONOTONIC ns)."""
    buf = np.frombuffer(head, dtype=np.uint8)
    lebs = decode(buf[start : start + 10 * n + 10])
    if len(lebs.start) > n:  # one LEB per event: the next record starts after the n-th
        after = start + int(lebs.start[n])
        if head[after] in (ENTRIES, METHOD_INFO, THREAD_INFO):
            return True
    end = block_end(buf, start, n)
    if end is None:
        first = lebs.signed()[:1]
        return bool(len(first)) and int(first[0]) >> 1 >= 10**9
    return end == len(head) or head[end] in (ENTRIES, METHOD_INFO, THREAD_INFO)


@dataclass
class Walk:
    """The records found by one pass over the file."""

    tids: list[int] = field(default_factory=list)  # per block
    counts: list[int] = field(default_factory=list)  # events the block header announces
    spans: list[tuple[int, int]] = field(default_factory=list)  # payload [start, end)
    method_ids: list[int] = field(default_factory=list)
    method_texts: list[bytes] = field(default_factory=list)
    thread_names: dict[int, str] = field(default_factory=dict)
    diags: list[Diagnostic] = field(default_factory=list)
    sizes: bool = True  # the blocks' size fields are written (long-running mode)


def sizes_written(buf: npt.NDArray[np.uint8], view: memoryview) -> bool:
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
        end = block_end(buf, start, n)
        if end is not None:
            return end - start == length
        return n <= length <= 20 * n and start + length > size
    return True


def one_leb_per_event(buf: npt.NDArray[np.uint8], view: memoryview) -> bool:
    """True when the file walks cleanly to its end with blocks of one LEB per event: the
    all-methods layout of ART's stored `DumpBuffer` (SLEB128 deltas of `ArtMethod* | action`,
    no timestamps), which a time-carrying decode cannot read."""
    pos, size, events = 0, len(view), 0
    while pos < size:
        kind = view[pos]
        if kind == ENTRIES and pos + BLOCK_HEADER <= size:
            n = int.from_bytes(view[pos + 5 : pos + 8], "little")
            start = pos + BLOCK_HEADER
            lebs = decode(buf[start : min(start + 10 * n + 10, size)])
            if len(lebs.start) < n or (n and lebs.start[n - 1] + lebs.length[n - 1] > size - start):
                return False
            pos = start + (int(lebs.start[n - 1] + lebs.length[n - 1]) if n else 0)
            events += n
        elif kind in (METHOD_INFO, THREAD_INFO):
            head = METHOD_HEADER if kind == METHOD_INFO else THREAD_HEADER
            if pos + head > size:
                return False
            pos += head + int.from_bytes(view[pos + head - 2 : pos + head], "little")
        else:
            return False
    return pos == size and events > 0


def walk_file(data: bytes | memoryview) -> Walk:
    out = Walk()
    view = memoryview(data)
    buf = np.frombuffer(data, dtype=np.uint8)
    out.sizes = sizes_written(buf, view)
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
                found = block_end(buf, start, n) if n else start
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


@dataclass
class Events:
    block: I64  # block index per event
    time: I64  # absolute ns
    exit: npt.NDArray[np.bool_]
    method_id: U64  # per event (0 for exits)


def decode_events(data: bytes | memoryview, walk: Walk) -> Events:
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
    before = states_before(parity, first)
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
    return Events(
        t_block[valid].astype(np.int64),
        time_action[valid] >> 1,
        exit_[valid],
        method_id[valid],
    )
