"""Content sniffing: which reader the first bytes call for, or which other format they are.

Only the bytes decide (never the file name). Every variant module answers `sniff(head)`;
`choose` asks them in the order of `READERS` (V2 before the regular reader: the earliest V2
file mode starts with summary text; simpleperf last, its headerless form being the loosest
test), importing each when its turn comes: a command on a V1 trace never imports the
Android 16, ANR or simpleperf readers. Recognised other formats (Perfetto, systrace/atrace,
Chrome JSON, an Android 16 low-overhead dump whose first block does not read) raise
`NotATraceError` naming them and what to do with them (ANR reports and bugreport zips, which
may carry low-overhead dumps, have their reader: `lowoverhead/anr.py`); anything else names
its first bytes and the variants tried.
"""

from __future__ import annotations

import importlib
import struct
from collections.abc import Collection
from typing import Protocol, cast

from traceview.model import NotATraceError, Trace, TraceFormatError
from traceview.readers.source import Source

GZIP = b"\x1f\x8b"
_EXPECTED = "'*version' or 'SLOW'"


class Reader(Protocol):
    """The contract of one variant module: recognise its first bytes, read a whole file
    (keeping the time columns of `clocks` when it can: `load` drops the others anyway)."""

    def sniff(self, head: bytes) -> bool: ...

    def read(
        self, src: Source, *, source: str | None = None, clocks: Collection[str] | None = None
    ) -> Trace: ...


READERS: tuple[tuple[str, str], ...] = (  # (name, module), asked in this order
    ("v2", "traceview.readers.v2"),
    ("regular", "traceview.readers.v1.regular"),
    ("data", "traceview.readers.v1.split"),
    ("streaming", "traceview.readers.v1.streaming"),
    ("anr", "traceview.readers.lowoverhead.anr"),
    ("lowoverhead", "traceview.readers.lowoverhead"),
    ("simpleperf", "traceview.readers.simpleperf"),
)


def is_gzip(head: bytes) -> bool:
    """The gzip magic."""
    return head.startswith(GZIP)


def choose(head: bytes) -> tuple[str, Reader]:
    """The (name, module) of the reader for a file starting with `head` (the first few KB);
    raises for anything no reader takes."""
    if not head:
        raise NotATraceError("empty file", offset=0, expected=_EXPECTED, found="0 bytes")
    for name, module in READERS:
        reader = cast(Reader, importlib.import_module(module))
        if reader.sniff(head):
            return name, reader
    if head.startswith(b"SLOW"):
        if len(head) < 6:
            raise TraceFormatError(
                "data header is truncated", offset=len(head), expected="a u2 version", found="EOF"
            )
        (version,) = struct.unpack_from("<H", head, 4)
        if head[4:7] == b"\xef\xbf\xbd" or head[5:8] == b"\xef\xbf\xbd":
            raise TraceFormatError(
                "the version bytes are EF BF BD (U+FFFD): the file went through a text-mode "
                "transfer or a text editor; transfer it as binary (e.g. adb pull)",
                offset=4,
                expected="a u2 version",
                found=_hex(head[4:8]),
            )
        raise TraceFormatError(
            "unsupported method-trace version",
            offset=4,
            expected="1-3, 0xF1-0xF3, 4, 5, 0xF4 or 0xF5",
            found=f"{version} (0x{version:x})",
        )
    if head[0] == 0x0A and _plausible_protobuf(head):
        raise NotATraceError(
            "this is a Perfetto system trace, not a method trace: open it in Perfetto UI "
            "(ui.perfetto.dev), or merge a method trace of the same run into it with "
            "`traceview export METHOD.trace --merge-into THIS_FILE -o merged.perfetto-trace`",
            offset=0,
        )
    other = _other_format(head)
    if other:
        raise NotATraceError(
            f"this is {other}, not an Android method trace (.trace)",
            offset=0,
            expected=_EXPECTED,
            found=_hex(head),
        )
    tried = ", ".join(name for name, _ in READERS)
    raise NotATraceError(
        f"not an Android method trace (tried {tried}): first bytes are {_hex(head)}",
        offset=0,
        expected=_EXPECTED,
        found=repr(head[:8]),
    )


def _other_format(head: bytes) -> str | None:
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith((b"# tracer:", b"TRACE:", b"# ========")) or b"\nTRACE:" in text[:512]:
        return "a systrace/atrace/ftrace text trace (open it in Perfetto)"
    low = text[:64].lower()
    if low.startswith((b"<!doctype html", b"<html")):
        return "an HTML systrace report (open it in a browser or Perfetto)"
    if text.startswith((b"{", b"[")):
        return "a JSON trace (Chrome trace-event format; open it in Perfetto)"
    if head[0] == 0x02:
        return "an Android 16 low-overhead dump whose first entry block is unreadable"
    return None


def _plausible_protobuf(head: bytes) -> bool:
    """0x0a (field 1, length-delimited) then a varint length that is plausible."""
    length, shift, i = 0, 0, 1
    while i < len(head) and i < 11:
        b = head[i]
        length |= (b & 0x7F) << shift
        shift += 7
        i += 1
        if not b & 0x80:
            return 0 < length < (1 << 31) and (len(head) < 4096 or length <= 64 << 20)
    return False


def _hex(head: bytes) -> str:
    return " ".join(f"{b:02x}" for b in head[:8])
