"""The text trailer of early low-overhead dumps (ART before 2025-02-26, format.md §1.8):
`\\n*threads\\n` then `tid\\tname` lines, `*methods\\n` then `id\\tclass\\tname\\tsignature\\tfile`
lines, then `*end`. Method ids are printed as pointers (`0x7b3c...`) or, in the first version,
in decimal. Read into the same lists the binary type 0/1 packets fill.
"""

from __future__ import annotations

__all__ = ["TEXT_TRAILER", "parse_trailer"]

TEXT_TRAILER = b"\n*threads\n"
_METHODS, _END = b"*methods", b"*end"


def parse_trailer(
    view: memoryview,
    pos: int,
    method_ids: list[int],
    method_texts: list[bytes],
    thread_names: dict[int, str],
) -> int:
    """Read the trailer at `pos`; return the offset after its `*end` (or the input's end).
    Lines that do not parse are skipped: names are untrusted, ids must be numbers."""
    data = bytes(view[pos:])
    stop = data.find(b"\n" + _END)
    body = data[len(TEXT_TRAILER) : stop if stop >= 0 else len(data)]
    section = "threads"
    for line in body.split(b"\n"):
        if line == _METHODS:
            section = "methods"
            continue
        ident, tab, rest = line.partition(b"\t")
        number = _number(ident)
        if not tab or number is None:
            continue
        if section == "threads":
            if number < 1 << 32:
                thread_names[number] = rest.decode("utf-8", "surrogateescape")
        elif number < 1 << 64:
            method_ids.append(number)
            method_texts.append(rest + b"\n")
    return pos + (stop + 1 + len(_END) if stop >= 0 else len(data))


def _number(text: bytes) -> int | None:
    """A decimal or `0x` hex id of at most 20 digits, else None."""
    digits, base = (text[2:], 16) if text[:2].lower() == b"0x" else (text, 10)
    if not digits or len(digits) > 20 or not digits.isalnum() or not digits.isascii():
        return None
    try:
        return int(digits, base)
    except ValueError:
        return None
