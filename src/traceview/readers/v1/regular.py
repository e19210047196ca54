"""Reader for V1 non-streaming traces: key text, then a `SLOW` v1-3 data section of records.

Also the engine of the split (`.key` + `.data`) and data-only variants (`split.py`): the key
may come from another source, or be absent. Records are decoded chunk by chunk straight from
the file into preallocated columns (`Source.records`, `RecordDecoder`).
"""

from __future__ import annotations

import struct
from collections.abc import Collection

from traceview.model import Diagnostic, Trace, TraceFormatError, Variant
from traceview.readers.keytext import KeyText, find_key_end, parse_key
from traceview.readers.source import Source
from traceview.readers.v1.header import layout_for, parse_data_header, resolve_clock
from traceview.readers.v1.records import RecordDecoder, Sink
from traceview.readers.v1.tables import finish

_HEAD = 1 << 20
MAX_KEY = 64 << 20  # the largest key text looked through for `*end` (100k methods: ~10 MB)
_TEXT = 64 << 20


def read_key(src: Source, diags: list[Diagnostic], *, where: str = "key section") -> KeyText:
    """Parse the key text at the start of `src`; TraceFormatError if it has no `*end` line."""
    size = _HEAD
    while True:
        head = src.read(0, size)
        end = find_key_end(head)
        if end is not None and (end < len(head) or len(head) == src.size):
            break
        if len(head) >= src.size:
            raise TraceFormatError(
                f"the {where} has no *end line",
                offset=len(head),
                expected="'*end'",
                found="end of file",
            )
        if len(head) >= MAX_KEY:
            raise TraceFormatError(
                f"the {where} has no *end line in its first {MAX_KEY >> 20} MiB",
                offset=len(head),
                expected="'*end'",
                found="more text (or binary data) without one",
            )
        size = min(size * 4, MAX_KEY)
    return parse_key(head, diags, where=where)


def sniff(head: bytes) -> bool:
    """A key section first: `*version`, maybe after a UTF-8 BOM (V2 is asked before)."""
    return head.startswith((b"*version", b"\xef\xbb\xbf*version"))


def read(
    src: Source,
    *,
    source: str | None = None,
    clocks: Collection[str] | None = None,
    sink: Sink | None = None,
) -> Trace:
    """Read a combined key + data file; `clocks`: the time columns wanted, `sink`: where the
    records go instead of the trace (`RecordDecoder`)."""
    diags: list[Diagnostic] = []
    key = read_key(src, diags)
    return read_data(
        src, key.end, key, variant="regular", diags=diags, source=source, clocks=clocks, sink=sink
    )


def read_data(
    src: Source,
    offset: int,
    key: KeyText | None,
    *,
    variant: Variant,
    diags: list[Diagnostic],
    source: str | None,
    clocks: Collection[str] | None = None,
    sink: Sink | None = None,
) -> Trace:
    """Decode the data section at `offset` of `src` with the (optional) key, keeping the time
    columns of `clocks` (default every clock), or handing the records to `sink`
    (`RecordDecoder`)."""
    head = src.read(offset, 64)
    if not _consistent(head, src.size - offset):
        fixed = _unmangle(src.read(offset, src.size - offset) if src.size - offset < _TEXT else b"")
        if fixed is not None and _consistent(fixed[:64], len(fixed)):
            diags.append(
                Diagnostic(
                    "text-mangled-data",
                    "the data section was saved as text (cp1252 bytes re-encoded as UTF-8); "
                    "decoded back to the original bytes (offsets below refer to those)",
                    offset=offset,
                )
            )
            src, offset, head = Source(fixed), 0, fixed[:64]
    hdr = parse_data_header(head, offset, diags)
    version = hdr.version
    if version not in (1, 2, 3):
        raise TraceFormatError(
            "unsupported data version",
            offset=offset + 4,
            expected="1, 2 or 3",
            found=f"{version} (0x{version:x})",
        )
    first = src.read(hdr.data_start, 18 * 64)
    layout = layout_for(version, hdr.record_size, first, diags, offset + 16)
    options = key.options if key else {}
    layout, clock = resolve_clock(layout, options, diags, guessed=key is None)
    avail = max(0, src.size - hdr.data_start)
    count, rest = divmod(avail, layout.record_size)
    if hdr.data_start > src.size:
        diags.append(
            Diagnostic(
                "truncated-record",
                "the file ends inside the data header",
                offset=src.size,
            )
        )
    if rest:
        at = hdr.data_start + count * layout.record_size
        diags.append(
            Diagnostic(
                "truncated-record",
                f"the last {rest} byte(s) at offset {at} do not make a whole "
                f"{layout.record_size}-byte record (file cut short?); ignored",
                offset=at,
                count=rest,
            )
        )
    threads = key.threads if key else {}
    methods = list(key.methods) if key else []
    vm = options.get("vm")
    fill = vm in (None, "dalvik")
    dec = RecordDecoder(
        layout, count, list(threads), methods, dalvik_fill=fill, clocks=clocks, sink=sink
    )
    for chunk in src.records(hdr.data_start, count, layout.dtype()):
        dec.feed(chunk)
        if dec.stopped_at is not None or dec.halted:
            break
    if key is None:
        diags.append(
            Diagnostic(
                "no-key",
                "a bare data section without a key: threads are unnamed and methods read (0x…)",
            )
        )
    return finish(
        dec,
        key,
        variant=variant,
        version=version,
        clock=clock,
        start_time_us=hdr.start_time_us,
        diags=diags,
        source=source,
        declared_threads=threads,
    )


def _consistent(head: bytes, size: int) -> bool:
    """A v1-3 data header whose record size divides the data length exactly."""
    if len(head) < 18 or head[:4] != b"SLOW":
        return False
    version, offset, _, rs = struct.unpack_from("<HHQH", head, 4)
    if version not in (1, 2, 3) or offset < 16 or offset > size:
        return False
    rs = {1: 9, 2: 10}.get(int(version), int(rs))
    return bool(9 <= rs <= 32 and (size - offset) % rs == 0)


def _unmangle(raw: bytes) -> bytes | None:
    """Undo a text editor's cp1252/latin-1 -> UTF-8 re-encoding of binary data, if it was one."""
    if raw.isascii():
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    for encoding in ("cp1252", "latin-1"):
        try:
            return text.encode(encoding)
        except UnicodeEncodeError:
            continue
    return None
