"""The bytes of a low-overhead dump's packets (format.md §1.8), vectorised over events:
entry blocks of either mode, thread and method infos (binary packets or the text trailer) and
the summary packet. `__init__.py` writes a `Trace` with them; `art.py` a simulated ART run.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from traceview.writer._leb128 import encode
from traceview.writer.lowoverhead.eras import Era

__all__ = ["blocks", "infos", "summary", "timed_lebs", "timeless_lebs"]

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]
Mask = npt.NDArray[np.bool_]


def _starts(block: I64) -> Mask:
    n = len(block)
    return np.r_[True, block[1:] != block[:-1]] if n else np.zeros(0, bool)


def timed_lebs(block: I64, time_action: I64, is_exit: Mask, method: U64, era: Era) -> U64:
    """The SLEB128 values of long-running events grouped by block: the delta of each
    `time_action` and, for an entry, of its method (both restarting at 0 per block); the
    time first, or (February 2025) the method first."""
    first = _starts(block)
    ta = time_action - np.r_[np.int64(0), time_action[:-1]]
    ta[first] = time_action[first]
    entry = np.flatnonzero(~is_exit)
    ids = method[entry]
    m_delta = ids - np.r_[np.uint64(0), ids[:-1]]
    e_first = _starts(block[entry])
    m_delta[e_first] = ids[e_first]
    width = 1 + (~is_exit).astype(np.int64)
    at = np.cumsum(width) - width
    values = np.empty(int(width.sum()), dtype=np.uint64)
    time_at, method_at = (at + 1, at) if era.method_first else (at, at + 1)
    values[np.where(is_exit, at, time_at)] = ta.view(np.uint64)
    values[method_at[entry]] = m_delta
    return values


def timeless_lebs(block: I64, word: U64) -> U64:
    """The SLEB128 values of all-methods events as ART's `DumpBuffer` writes them: `word` is
    the ring's word (the method on entry, 1 on exit); entry -> word - previous word (0 first
    in a block), exit -> 1 after an entry or first, 0 after an exit."""
    first = _starts(block)
    is_exit = word == 1
    prev = np.r_[np.uint64(0), word[:-1]]
    prev[first] = 0
    after_exit = np.r_[False, is_exit[:-1]] & ~first
    out: U64 = np.where(is_exit, np.where(after_exit, 0, 1).astype(np.uint64), word - prev)
    return out


def blocks(
    tids: Sequence[int],
    counts: Sequence[int],
    block_of_value: I64,
    values: U64,
    header: int,
    size_field: bytes | None,
) -> bytes:
    """Entry blocks `u1 2 | u4 tid | u3 n` (+ `u4 size` in 12-byte headers: the payload size,
    or `size_field` as ART's all-methods dumps leave those bytes: unwritten), each followed by
    its values as SLEB128."""
    raw, lengths = encode(values, np.ones(len(values), dtype=bool))
    per_block = np.bincount(block_of_value, weights=lengths, minlength=len(tids)).astype(np.int64)
    ends = np.cumsum(per_block)
    out = bytearray()
    for b, (tid, count) in enumerate(zip(tids, counts, strict=True)):
        out += struct.pack("<BI", 2, tid & 0xFFFFFFFF) + int(count).to_bytes(3, "little")
        if header == 12:
            out += struct.pack("<I", int(per_block[b])) if size_field is None else size_field[:4]
        out += raw[ends[b] - per_block[b] : ends[b]].tobytes()
    return bytes(out)


def infos(
    threads: Sequence[tuple[int, str]],
    methods: Sequence[tuple[int, str]],
    era: Era,
) -> bytes:
    """Thread then method infos (`DumpThreadMethodInfo`'s order): binary type 0/1 packets, or
    the text trailer. A method's text is `class\\tname\\tsignature\\tfile\\n`."""
    if era.trailer == "text":
        text = "\n*threads\n" + "".join(f"{tid}\t{name}\n" for tid, name in threads)
        text += "*methods\n"
        for ident, line in methods:
            text += (f"{ident:#x}" if era.ids == "hex" else str(ident)) + "\t" + line
        return (text + "*end").encode("utf-8", "surrogateescape")
    out = bytearray()
    for tid, name in threads:
        raw = name.encode("utf-8", "surrogateescape")
        out += struct.pack("<BIH", 0, tid & 0xFFFFFFFF, len(raw)) + raw
    for ident, line in methods:
        raw = line.encode("utf-8", "surrogateescape")
        out += struct.pack("<BQH", 1, ident, len(raw)) + raw
    return bytes(out)


def summary(end_ns: int, monotonic_ns: int) -> bytes:
    """The summary packet of the newest ART: `u1 3 | u8 end time ns | u8 CLOCK_MONOTONIC ns`."""
    return struct.pack("<BQQ", 3, end_ns, monotonic_ns)
