"""Content sniffing: which trace variant the first bytes announce, or which other format it is.

Only the bytes decide (never the file name). Recognised non-ART formats (simpleperf, Perfetto,
systrace/atrace, Chrome JSON, the Android 16 long-running dump) raise `NotATraceError` naming
them; anything else names its first bytes.
"""

from __future__ import annotations

import struct
from typing import Literal

from traceview.model import NotATraceError, TraceFormatError

Kind = Literal["gzip", "regular", "data", "streaming", "v2"]
GZIP = b"\x1f\x8b"
_EXPECTED = "'*version' or 'SLOW'"


def _v2_after_key(head: bytes) -> bool:
    """True for the earliest V2 file mode (2024): summary text first, then a V2 `SLOW` header."""
    end = head.find(b"*end\n")
    if end < 0:
        return False
    at = end + 5
    if head[at : at + 4] != b"SLOW" or len(head) < at + 6:
        return False
    (version,) = struct.unpack_from("<H", head, at + 4)
    return version in (4, 5, 0xF4, 0xF5)


def sniff(head: bytes) -> Kind:
    """The kind of trace `head` (the first few KB) starts; raises for anything else."""
    if not head:
        raise NotATraceError("empty file", offset=0, expected=_EXPECTED, found="0 bytes")
    if head.startswith(GZIP):
        return "gzip"
    if head.startswith((b"*version", b"\xef\xbb\xbf*version")):
        return "v2" if _v2_after_key(head) else "regular"
    if head.startswith(b"SLOW"):
        if len(head) < 6:
            raise TraceFormatError(
                "data header is truncated", offset=len(head), expected="a u2 version", found="EOF"
            )
        (version,) = struct.unpack_from("<H", head, 4)
        if version in (1, 2, 3):
            return "data"
        if version in (0xF1, 0xF2, 0xF3):
            return "streaming"
        if version in (4, 5, 0xF4, 0xF5):
            return "v2"
        raise TraceFormatError(
            "unsupported method-trace version",
            offset=4,
            expected="1-3, 0xF1-0xF3, 4, 5, 0xF4 or 0xF5",
            found=f"{version} (0x{version:x})",
        )
    other = _other_format(head)
    if other:
        raise NotATraceError(
            f"this is {other}, not an Android method trace (.trace)",
            offset=0,
            expected=_EXPECTED,
            found=_hex(head),
        )
    raise NotATraceError(
        f"not an Android method trace: first bytes are {_hex(head)}",
        offset=0,
        expected=_EXPECTED,
        found=repr(head[:8]),
    )


def _other_format(head: bytes) -> str | None:
    if head.startswith(b"SIMPLEPERF"):
        return "a simpleperf recording (open it with simpleperf report or Android Studio)"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith((b"# tracer:", b"TRACE:", b"# ========")) or b"\nTRACE:" in text[:512]:
        return "a systrace/atrace/ftrace text trace (open it in Perfetto)"
    low = text[:64].lower()
    if low.startswith((b"<!doctype html", b"<html")):
        return "an HTML systrace report (open it in a browser or Perfetto)"
    if text.startswith((b"{", b"[")):
        return "a JSON trace (Chrome trace-event format; open it in Perfetto)"
    if head[0] == 0x0A and _plausible_protobuf(head):
        return "a Perfetto protobuf trace (open it in Perfetto)"
    if head[0] == 0x02:
        return "an Android 16 long-running method dump (no SLOW header); it is not a .trace file"
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
