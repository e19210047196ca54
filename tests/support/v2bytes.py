"""Hand-packed ART V2 bytes for the V2 tests, independent of `traceview.writer.v2`.

Plain-Python LEB128 and `struct` packing of headers, info packets, entry blocks of every
generation and the summary, following format.md §1.7 (not the package's code).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence


def uleb(value: int) -> bytes:
    """ULEB128 of a non-negative int (values >= 2^64 wrap like the u64 writer)."""
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def sleb(value: int) -> bytes:
    """SLEB128 of an int in the int64 range (u64 differences are wrapped first)."""
    value &= (1 << 64) - 1
    if value >= 1 << 63:
        value -= 1 << 64
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if (value == 0 and not byte & 0x40) or (value == -1 and byte & 0x40):
            out.append(byte)
            return bytes(out)
        out.append(byte | 0x80)


def header(version: int, start: int = 0, tsc_start: int = 0, tsc_freq: int = 0) -> bytes:
    """The 32-byte V2 header (TSC fields only for gamma)."""
    raw = bytearray(32)
    raw[:4] = b"SLOW"
    struct.pack_into("<HQ", raw, 4, version, start)
    struct.pack_into("<QQ", raw, 14, tsc_start, tsc_freq)
    return bytes(raw)


def thread_info(tid: int, name: bytes) -> bytes:
    """Packet 0: u4 tid, u2 length, name."""
    return struct.pack("<BIH", 0, tid, len(name)) + name


def method_info(ident: int, text: bytes, id_width: int = 8) -> bytes:
    """Packet 1: u8 (or early-alpha u4) id, u2 length, `class\\tname\\tsig\\tfile\\n`."""
    fmt = "<BQH" if id_width == 8 else "<BIH"
    return struct.pack(fmt, 1, ident, len(text)) + text


def summary(options: dict[str, str], version: int) -> bytes:
    """Packet 3: u2 length + `*version\\nN\\nkey=value...*end\\n`."""
    text = f"*version\n{version}\n" + "".join(f"{k}={v}\n" for k, v in options.items())
    raw = (text + "*end\n").encode()
    return struct.pack("<BH", 3, len(raw)) + raw


Record = tuple[int, int, list[int]]  # (method id, action, [times in payload order])


def beta_block(tid: int, records: list[Record], after: Record | None = None) -> bytes:
    """V2-β: `u1 2|u4 tid|u3 n|u4 size`, SLEB Δ(method|action), ULEB Δ per clock, from 0
    (or, as ART's split streaming flushes do, from the record `after`)."""
    payload = bytearray()
    prev_value = 0 if after is None else after[0] | after[1]
    prev_times = [0] * (len(records[0][2]) if records else 0)
    if after is not None:
        prev_times = list(after[2])
    for method, action, times in records:
        value = method | action
        payload += sleb(value - prev_value)
        prev_value = value
        for k, t in enumerate(times):
            payload += uleb(t - prev_times[k])
            prev_times[k] = t
    head = struct.pack("<BI", 2, tid) + len(records).to_bytes(3, "little")
    return head + struct.pack("<I", len(payload)) + bytes(payload)


def alpha_block(
    tid: int,
    records: Sequence[tuple[int, int, int | None, int | None]],
    id_width: int = 8,
    chained: bool = False,
) -> bytes:
    """V2-α: first record in clear (u8/u4 value, [u4 cpu], [u4 wall], u2 n-1, u2 size),
    then SLEB (value - first value), ULEB Δwall, ULEB Δcpu. Records: (value, action, cpu, wall).
    `chained`: Δ value against the previous record instead (a later alpha may have done so)."""
    first_value = records[0][0] | records[0][1]
    head = struct.pack("<BI", 2, tid)
    head += struct.pack("<Q" if id_width == 8 else "<I", first_value)
    cpu0, wall0 = records[0][2], records[0][3]
    if cpu0 is not None:
        head += struct.pack("<I", cpu0)
    if wall0 is not None:
        head += struct.pack("<I", wall0)
    payload = bytearray()
    pcpu, pwall = cpu0, wall0
    prev_value = first_value
    for method, action, cpu, wall in records[1:]:
        payload += sleb((method | action) - (prev_value if chained else first_value))
        prev_value = method | action
        if wall is not None and pwall is not None:
            payload += uleb((wall - pwall) & 0xFFFFFFFF)
            pwall = wall
        if cpu is not None and pcpu is not None:
            payload += uleb((cpu - pcpu) & 0xFFFFFFFF)
            pcpu = cpu
    head += struct.pack("<HH", len(records) - 1, len(payload))
    return head + bytes(payload)


def gamma_block(tid: int, records: Sequence[tuple[int, int, int, int | None]]) -> bytes:
    """V2-γ (Perfetto): SLEB Δ(ts<<2|action), [SLEB Δcpu], SLEB Δmethod on entries only.
    Records: (method, action, ts ticks, cpu or None)."""
    payload = bytearray()
    prev_tsa = prev_cpu = prev_method = 0
    for method, action, ts, cpu in records:
        tsa = ts << 2 | action
        payload += sleb(tsa - prev_tsa)
        prev_tsa = tsa
        if cpu is not None:
            payload += sleb(cpu - prev_cpu)
            prev_cpu = cpu
        if action == 0:
            payload += sleb(method - prev_method)
            prev_method = method
    head = struct.pack("<BI", 2, tid) + len(records).to_bytes(3, "little")
    return head + struct.pack("<I", len(payload)) + bytes(payload)
