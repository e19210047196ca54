"""Names from a trace are untrusted text: kept lossless in the model, shown safely everywhere.

Readers keep bytes that are not valid UTF-8 as surrogate escapes (U+DC80-U+DCFF), so nothing is
lost. `visible(text)` turns them into a visible `\\xNN` for any output that must be valid text
(JSON, HTML, SVG, DOT); `printable(text)` also escapes control characters and line separators,
for one line of a terminal or of an error message. `terminal_bytes(raw)` is for outputs that
print a trace's bytes as they are (dmtracedump's reports): unchanged unless they hold a
control character.
"""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
# a control character other than tab, or an undecodable byte 0x80-0x9F (a C1 control to a
# terminal in an 8-bit encoding)
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\udc80-\udc9f]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # a byte kept by surrogateescape
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: str) -> str:
    """`text` with undecodable bytes shown as `\\xNN` (always encodable as UTF-8)."""
    if text.isascii():
        return text
    return _SURROGATE.sub(_escape, text)


def printable(text: str) -> str:
    """`text` safe for one line of a terminal: also control characters as `\\xNN`."""
    return _CONTROL.sub(_escape, text)


def terminal_text(text: str) -> str:
    """`text` as it is, unless it holds a control character other than tab (a clear-screen or
    window-title sequence must not reach the terminal): then `printable` of each
    tab-separated part (tabs kept: dmtracedump glues key fields with them)."""
    if not _UNSAFE.search(text):
        return text
    return "\t".join(printable(part) for part in text.split("\t"))


def terminal_bytes(raw: bytes) -> bytes:
    """A name's bytes as they are, or as `terminal_text` escapes them when they hold a control
    character (for outputs that print the trace's bytes, like dmtracedump's)."""
    text = raw.decode("utf-8", "surrogateescape")
    if not _UNSAFE.search(text):
        return raw
    return terminal_text(text).encode("utf-8")
