"""Reader for V1 streaming traces (`SLOW` 0xF1-0xF3): records with inline method/thread packets.

A packet starts where a record's thread id would be 0 (`00 00 op`). The scan walks runs of
fixed-size records with a strided numpy search for the next zero id, so the Python loop is
per packet, never per record. The trailing summary packet (op 3) holds the key text; streams
without one (Android 5-7, or pulled mid-trace) are "streaming-nosummary".
"""

from __future__ import annotations

import struct
from collections.abc import Collection

import numpy as np

from traceview.model import Diagnostic, Trace, TraceFormatError
from traceview.readers.keytext import (
    KeyText,
    MethodLine,
    NameDecoder,
    parse_key,
    parse_method_line,
)
from traceview.readers.source import Source
from traceview.readers.v1.header import layout_for, parse_data_header, resolve_clock
from traceview.readers.v1.records import RecordDecoder
from traceview.readers.v1.tables import finish

OP_METHOD, OP_THREAD, OP_SUMMARY = 1, 2, 3


def sniff(head: bytes) -> bool:
    """`SLOW` with version 0xF1, 0xF2 or 0xF3."""
    return (
        head[:4] == b"SLOW"
        and len(head) >= 6
        and struct.unpack_from("<H", head, 4)[0] in (0xF1, 0xF2, 0xF3)
    )


def read(src: Source, *, source: str | None = None, clocks: Collection[str] | None = None) -> Trace:
    """Read a V1 streaming trace (the whole stream is walked in memory), keeping the time
    columns of `clocks` (default every clock)."""
    data = src.whole()
    diags: list[Diagnostic] = []
    hdr = parse_data_header(data[:64], 0, diags)
    if hdr.version & 0x0F not in (1, 2, 3):
        raise TraceFormatError(
            "unsupported streaming version", offset=4, expected="0xF1-0xF3", found=hex(hdr.version)
        )
    layout = layout_for(hdr.version, hdr.record_size, b"", diags, 16)
    rs = layout.record_size
    names = NameDecoder()
    threads: dict[int, str | None] = {}
    methods: dict[int, MethodLine] = {}
    dup_methods = 0
    summary: KeyText | None = None
    segments: list[tuple[int, int]] = []
    seen = 0  # records before the current position
    renames: list[tuple[int, int, str]] = []  # (record index, tid, new name)
    latest: dict[int, str] = {}  # a renamed tid's current name
    n = len(data)
    pos = hdr.data_start
    while pos + 2 <= n:
        if data[pos] or data[pos + 1]:
            k = _run_length(data, pos, rs, (n - pos) // rs)
            if k == 0:
                break
            segments.append((pos, k))
            seen += k
            pos += k * rs
            continue
        op = data[pos + 2] if pos + 2 < n else -1
        if op == OP_METHOD and pos + 5 <= n:
            (size,) = struct.unpack_from("<H", data, pos + 3)
            body, end = data[pos + 5 : pos + 5 + size], pos + 5 + size
            if end <= n:
                m = parse_method_line(names.decode(body))
                if m is not None:
                    if m.id in methods and methods[m.id] != m:
                        dup_methods += 1
                    methods[m.id] = m
                pos = end
                continue
        elif op == OP_THREAD and pos + 7 <= n:
            tid, size = struct.unpack_from("<HH", data, pos + 3)
            end = pos + 7 + size
            if end <= n:
                name = names.decode(data[pos + 7 : end])
                if threads.get(tid) is None:
                    threads[tid] = name
                elif latest.get(tid, threads[tid]) != name:
                    renames.append((seen, tid, name))
                    latest[tid] = name
                pos = end
                continue
        elif op == OP_SUMMARY and pos + 7 <= n:
            (size,) = struct.unpack_from("<I", data, pos + 3)
            end = pos + 7 + size
            if end <= n:
                summary = parse_key(data[pos + 7 : end], diags, where="summary")
                pos = end
                if pos < n:
                    diags.append(
                        Diagnostic(
                            "trailing-bytes",
                            f"{n - pos} byte(s) after the summary packet ignored",
                            offset=pos,
                            count=n - pos,
                        )
                    )
                    pos = n
                break
        if op in (OP_METHOD, OP_THREAD, OP_SUMMARY):
            diags.append(
                Diagnostic(
                    "truncated-packet",
                    f"the file ends inside a packet (op {op}); the rest is lost",
                    offset=pos,
                )
            )
        else:
            diags.append(
                Diagnostic(
                    "bad-packet",
                    f"unknown packet op {op} after a zero thread id; reading stops here",
                    offset=pos,
                )
            )
        pos = n
        break
    if pos < n:
        diags.append(
            Diagnostic(
                "truncated-record",
                f"the last {n - pos} byte(s) at offset {pos} do not make a whole record; ignored",
                offset=pos,
                count=n - pos,
            )
        )
    if dup_methods:
        diags.append(
            Diagnostic(
                "duplicate-method",
                f"{dup_methods} method id(s) announced twice with different names; last wins",
                count=dup_methods,
            )
        )
    diags.extend(names.diagnostics("method/thread packets"))
    key = KeyText()
    if summary is not None:
        key.version, key.options = summary.version, summary.options
        for tid, name in summary.threads.items():
            if threads.get(tid) is None:
                threads[tid] = name
        for mid, line in summary.methods.items():
            if mid in methods and methods[mid] != line:
                diags.append(
                    Diagnostic(
                        "duplicate-method",
                        f"method 0x{mid:x} differs between its packet and the summary; "
                        "the summary wins",
                    )
                )
            methods[mid] = line
    key.methods = methods
    layout, clock = resolve_clock(layout, key.options, diags, guessed=summary is None)
    if summary is None:
        diags.append(
            Diagnostic(
                "no-summary",
                "the stream has no trailing summary (Android 5-7, or cut off): no options, "
                "clock guessed from the version",
            )
        )
    total = sum(k for _, k in segments)
    records = Source(b"".join(memoryview(data)[o : o + k * rs] for o, k in segments))
    dec = RecordDecoder(layout, total, list(threads), list(methods), clocks=clocks)
    row_names = _decode_with_renames(dec, records, total, renames, diags)
    return finish(
        dec,
        key,
        variant="streaming" if summary is not None else "streaming-nosummary",
        version=hdr.version,
        clock=clock,
        start_time_us=hdr.start_time_us,
        diags=diags,
        source=source,
        declared_threads=threads,
        row_names=row_names,
    )


def _decode_with_renames(
    dec: RecordDecoder,
    records: Source,
    total: int,
    renames: list[tuple[int, int, str]],
    diags: list[Diagnostic],
) -> dict[int, str | None]:
    """Decode every record; a thread packet renaming a tid that already has records, with
    records after it, starts a new row for that tid (the VM reused the id); a rename with no
    records on one side just renames the row (last name wins). Returns row -> name overrides."""
    dtype = dec.layout.dtype()
    rs = dec.layout.record_size
    tids = (
        np.ndarray((total,), dtype="<u2", buffer=records.whole(), strides=(rs,)) if total else None
    )
    row_names: dict[int, str | None] = {}
    reused = renamed = 0
    start = 0
    for at, tid, name in [*renames, (total, -1, "")]:
        for chunk in records.records(start * rs, at - start, dtype):
            dec.feed(chunk)
        start = at
        if tid < 0:
            break
        later = tids is not None and bool(np.any(tids[at:] == tid))
        row = rebind(dec, tid) if later else None
        if row is None:
            row = int(dec.tlut[tid])
            renamed += 1
        else:
            reused += 1
        row_names[row] = name
    if reused:
        diags.append(
            Diagnostic(
                "thread-id-reused",
                f"{reused} thread packet(s) gave a new name to a thread id that already had "
                "records (the VM reused the id): each starts a new row with the same id and "
                "the records from that point",
                count=reused,
            )
        )
    if renamed:
        diags.append(
            Diagnostic(
                "thread-renamed",
                f"{renamed} thread packet(s) renamed a thread id with no records on one side of "
                "the rename; the last name wins",
                count=renamed,
            )
        )
    return row_names


def _run_length(data: bytes, pos: int, rs: int, avail: int) -> int:
    """How many whole records from `pos` have a non-zero thread id (strided numpy search)."""
    for i in range(min(8, avail)):  # short runs between packets: plain bytes are quicker
        at = pos + i * rs
        if not (data[at] or data[at + 1]):
            return i
    done, window = min(8, avail), 64
    while done < avail:
        c = min(window, avail - done)
        tids = np.ndarray((c,), dtype="<u2", buffer=data, offset=pos + done * rs, strides=(rs,))
        zero = np.flatnonzero(tids == 0)
        if len(zero):
            return done + int(zero[0])
        done += c
        window = min(window * 8, 1 << 20)
    return avail


def rebind(dec: RecordDecoder, tid: int) -> int | None:
    """Give `tid` a new row for the records fed from now on, when its current row has records
    (the VM reused the id); returns the new row, or None when the current row has no records
    yet (nothing to keep apart)."""
    row = int(dec.tlut[tid])
    if row >= 0 and not any(row < len(c.last) and c.last[row] >= 0 for c in dec.clocks.values()):
        return None
    new = len(dec.thread_ids)
    dec.thread_ids.append(tid)
    dec.widen_threads()
    dec.tlut[tid] = new
    for clock in dec.clocks.values():
        clock.grow(len(dec.thread_ids))
    return new
