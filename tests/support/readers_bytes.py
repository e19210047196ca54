"""Tiny struct-based builders of V1 trace bytes for the reader tests (independent of the writer).

Records are `(tid, method_id, action, t0[, t1])` with times in µs; `key()` builds the text
section, `header()` the 32-byte `SLOW` header, `regular()` / `streaming()` whole files.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from typing import TypedDict, Unpack

Rec = tuple[int, ...]
METHODS = (
    (0x0, "com.a.Main", "run", "()V", "Main.java"),
    (0x4, "com.a.Main", "work", "(I)V", "Main.java"),
    (0x8, "com.a.Util", "helper", "()I", "Util.java"),
)
THREADS = ((1, "main"), (2, "worker"))
MethodRow = tuple[int, *tuple[object, ...]]  # (id, class, name, sig, file[, line])


class KeyArgs(TypedDict, total=False):
    """`key()`'s arguments but `version`."""

    clock: str | None
    threads: Iterable[tuple[int, str]]
    methods: Iterable[Sequence[object]]
    options: Sequence[str]
    nl: str


def key(
    *,
    version: int = 3,
    clock: str | None = "dual",
    threads: Iterable[tuple[int, str]] = THREADS,
    methods: Iterable[Sequence[object]] = METHODS,
    options: Sequence[str] = ("data-file-overflow=false", "vm=art", "pid=42"),
    nl: str = "\n",
) -> bytes:
    """A key section; method rows are (id, class, name, sig, file[, line]) or raw strings."""
    lines = ["*version", str(version)]
    if clock is not None:
        lines.append(f"clock={clock}")
    lines += list(options)
    lines.append("*threads")
    lines += [f"{t}\t{n}" for t, n in threads]
    lines.append("*methods")
    for m in methods:
        if isinstance(m, str):
            lines.append(m)
        else:
            mid = m[0]
            lines.append("\t".join([f"{mid:#x}" if mid else "0", *(str(x) for x in m[1:])]))
    lines.append("*end")
    return nl.join(lines).encode("utf-8") + nl.encode()


def header(
    version: int = 3, *, offset: int = 32, start: int = 1234, record_size: int = 14
) -> bytes:
    """A V1 data header (`offset` = header length; the v3 record-size field when it fits)."""
    head = b"SLOW" + struct.pack("<HHQ", version, offset, start)
    if offset >= 18:
        head += struct.pack("<H", record_size if version & 0x0F == 3 else 0)
    return head.ljust(offset, b"\0")


def records(rows: Iterable[Rec], *, version: int = 3, record_size: int = 14) -> bytes:
    """Packed records: v1 u1 tid, v2 u2 tid + one time, v3 u2 tid + two times (+ padding)."""
    out = bytearray()
    for tid, mid, action, *times in rows:
        value = (mid | action) & 0xFFFFFFFF
        if version & 0x0F == 1:
            out += struct.pack("<BII", tid, value, times[0] & 0xFFFFFFFF)
        elif version & 0x0F == 2:
            out += struct.pack("<HII", tid, value, times[0] & 0xFFFFFFFF)
        else:
            rec = struct.pack("<HIII", tid, value, times[0] & 0xFFFFFFFF, times[1] & 0xFFFFFFFF)
            out += rec.ljust(record_size, b"\0")
    return bytes(out)


def regular(
    rows: Iterable[Rec],
    *,
    version: int = 3,
    record_size: int = 14,
    offset: int = 32,
    key_version: int | None = None,
    **key_args: Unpack[KeyArgs],
) -> bytes:
    """A combined key + data file (its key says `key_version`, by default `version`)."""
    text = key(version=version if key_version is None else key_version, **key_args)
    return (
        text
        + header(version, offset=offset, record_size=record_size)
        + records(rows, version=version, record_size=record_size)
    )


def method_packet(line: str) -> bytes:
    """A streaming method packet (`00 00 01 u2 len line`)."""
    body = line.encode("utf-8")
    return b"\0\0\x01" + struct.pack("<H", len(body)) + body


def thread_packet(tid: int, name: str) -> bytes:
    """A streaming thread packet (`00 00 02 u2 tid u2 len name`)."""
    body = name.encode("utf-8")
    return b"\0\0\x02" + struct.pack("<HH", tid, len(body)) + body


def summary_packet(text: bytes) -> bytes:
    """The trailing summary packet (`00 00 03 u4 len text`)."""
    return b"\0\0\x03" + struct.pack("<I", len(text)) + text


def streaming(
    rows: Sequence[Rec],
    *,
    version: int = 0xF3,
    summary: bool = True,
    methods: Sequence[MethodRow] = METHODS,
    threads: Sequence[tuple[int, str]] = THREADS,
) -> bytes:
    """A streaming file: each method/thread packet right before its first record."""
    out = bytearray(header(version))
    seen_m: set[int] = set()
    seen_t: set[int] = set()
    by_id = {int(m[0]): m for m in methods}
    names = dict(threads)
    for row in rows:
        tid, mid = row[0], row[1]
        if mid not in seen_m and mid in by_id:
            m = by_id[mid]
            out += method_packet("\t".join([f"{mid:#x}", *(str(x) for x in m[1:])]) + "\n")
            seen_m.add(mid)
        if tid not in seen_t and tid in names:
            out += thread_packet(tid, names[tid])
            seen_t.add(tid)
        out += records([row], version=version)
    if summary:
        out += summary_packet(key(version=version & 0x0F, threads=(), methods=methods))
    return bytes(out)
