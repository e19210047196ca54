"""Names from a trace are untrusted text: kept lossless in the model, shown safely everywhere.

Readers keep bytes that are not valid UTF-8 as surrogate escapes (U+DC80-U+DCFF), so nothing is
lost. `visible(text)` turns them into a visible `\\xNN` for any output that must be valid text
(JSON, HTML, SVG, DOT); `printable(text)` also escapes control characters and line separators,
for one line of a terminal or of an error message.
"""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


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
