"""Plain-Python models of Android 16 low-overhead dumps (format.md §1.8), independent of
`traceview.readers.lowoverhead` and `traceview.writer.lowoverhead`: ART's `DumpBuffer` and
long-running encodings event by event, their decoders, and packet packing, for the tests'
oracles and hand-made bytes.
"""

from __future__ import annotations

import struct

from support.v2bytes import sleb


def dump_buffer(words: list[int]) -> list[int]:
    """ART's `DumpBuffer` deltas for ring words in dump order (method on entry, 1 on exit)."""
    out, prev, prev_exit = [], 0, False
    for word in words:
        if word & 1:
            out.append(0 if prev_exit else 1)
        else:
            out.append(word - prev)
        prev, prev_exit = word, bool(word & 1)
    return out


def undump_buffer(deltas: list[int]) -> list[tuple[bool, int]]:
    """(is_exit, method or 0) per event, decoding deltas as §1.8 says: raw = prev + d; odd ->
    exit (prev = 1), else an entry of method raw (prev = raw)."""
    out, prev = [], 0
    for d in deltas:
        raw = (prev + d) & ((1 << 64) - 1)
        if raw & 1:
            out.append((True, 0))
            prev = 1
        else:
            out.append((False, raw))
            prev = raw
    return out


def all_methods_block(
    tid: int, words: list[int], header: int = 12, junk: bytes = b"\xde\xad\xbe\xef"
) -> bytes:
    """An all-methods entry block: header (12 bytes: 4 unwritten bytes `junk`) + deltas."""
    head = struct.pack("<BI", 2, tid) + len(words).to_bytes(3, "little")
    if header == 12:
        head += junk
    return head + b"".join(sleb(d) for d in dump_buffer(words))


def timed_block(tid: int, events: list[tuple[int, bool, int]]) -> bytes:
    """A long-running block of (time_ns, is_exit, method) events, deltas from 0 per block."""
    payload, prev_ta, prev_m = bytearray(), 0, 0
    for t, is_exit, m in events:
        ta = t << 1 | int(is_exit)
        payload += sleb(ta - prev_ta)
        prev_ta = ta
        if not is_exit:
            payload += sleb(m - prev_m)
            prev_m = m
    head = struct.pack("<BI", 2, tid) + len(events).to_bytes(3, "little")
    return head + struct.pack("<I", len(payload)) + bytes(payload)


def method_info(ptr: int, text: str) -> bytes:
    raw = text.encode()
    return struct.pack("<BQH", 1, ptr, len(raw)) + raw


def thread_info(tid: int, name: str) -> bytes:
    raw = name.encode()
    return struct.pack("<BIH", 0, tid, len(raw)) + raw


def summary(end_ns: int, monotonic_ns: int) -> bytes:
    return struct.pack("<BQQ", 3, end_ns, monotonic_ns)
