"""The protobuf wire format, as far as simpleperf's report-sample records need it.

Two decoders of the same rules: `fields` walks one small message in Python (file, thread and
meta-info records, a few per file, and any sample the fast path cannot take), and `varints`
decodes the varints at many offsets at once with numpy (every sample's next field together).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

U8 = npt.NDArray[np.uint8]
U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]

VARINT, I64BIT, LEN, I32BIT = 0, 1, 2, 5
MAX_VARINT = 10  # bytes: a uint64 (or a negative int32, sign-extended) takes at most ten


class WireError(ValueError):
    """A message that does not follow the wire format; `at` is the offset in its buffer."""

    def __init__(self, what: str, at: int) -> None:
        super().__init__(what)
        self.what = what
        self.at = at


def varint(buf: bytes | memoryview, at: int, end: int) -> tuple[int, int]:
    """The varint at `at` (not past `end`) and the offset after it."""
    value, shift, i = 0, 0, at
    while i < end and i - at < MAX_VARINT:
        b = buf[i]
        value |= (b & 0x7F) << shift
        i += 1
        if b < 0x80:
            return value & 0xFFFF_FFFF_FFFF_FFFF, i
        shift += 7
    raise WireError("a varint runs past its message" if i >= end else "a varint over 10 bytes", at)


def fields(
    buf: bytes | memoryview, at: int = 0, end: int | None = None
) -> list[tuple[int, int, int | bytes]]:
    """Every (field number, wire type, value) of the message in `buf[at:end]`: a number for
    varints and fixed fields, the bytes for length-delimited ones."""
    end = len(buf) if end is None else end
    out: list[tuple[int, int, int | bytes]] = []
    i = at
    while i < end:
        key, i = varint(buf, i, end)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise WireError("field number 0", i)
        if wire == VARINT:
            value, i = varint(buf, i, end)
            out.append((number, wire, value))
        elif wire == LEN:
            size, j = varint(buf, i, end)
            if size > end - j:
                raise WireError(f"a field of {size} bytes runs past its message", i)
            out.append((number, wire, bytes(buf[j : j + size])))
            i = j + size
        elif wire in (I64BIT, I32BIT):
            width = 8 if wire == I64BIT else 4
            if width > end - i:
                raise WireError("a fixed-width field runs past its message", i)
            out.append((number, wire, int.from_bytes(buf[i : i + width], "little")))
            i += width
        else:
            raise WireError(f"wire type {wire} (groups or unknown)", i)
    return out


def int32(value: int) -> int:
    """A proto int32 read as a varint (negative values are sign-extended to 64 bits)."""
    low = value & 0xFFFF_FFFF
    return low - (1 << 32) if low >= 1 << 31 else low


def text(value: int | bytes) -> str:
    """A string field, lossless (bytes that are not UTF-8 kept as surrogate escapes)."""
    return value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else ""


PAD = 64  # zero bytes after a buffer given to `varints`: reads past the end need no checks


def padded(buf: bytes | memoryview) -> U8:
    """The bytes of `buf` followed by `PAD` zeros (one copy, so no read needs a bound)."""
    raw = np.zeros(len(buf) + PAD, dtype=np.uint8)
    raw[: len(buf)] = np.frombuffer(buf, dtype=np.uint8)
    return raw


def varints(raw: U8, at: I64, end: I64, bits: int = 64) -> tuple[U64, I64]:
    """The varints starting at each offset `at` of a `padded` buffer, decoded at once: their
    values and sizes in bytes (0 for one that runs past its `end` or over 10 bytes). One pass
    per byte position, over the varints still going (most stop after one or two bytes).
    `bits=32` reads an int32 field: only its first five bytes hold bits that count (a -1
    takes ten bytes), the others are only walked."""
    b = raw[at]
    value = (b & 0x7F).astype(np.uint64)
    size = np.ones(len(at), dtype=np.int64)
    going = np.flatnonzero(b >= 0x80)
    for k in range(1, MAX_VARINT):
        if not len(going):
            break
        b = raw[at[going] + k]
        if 7 * k < bits:
            value[going] |= (b & 0x7F).astype(np.uint64) << np.uint64(7 * k)
        size[going] = k + 1
        going = going[b >= 0x80]
    size[going] = 0
    size[at + size > end] = 0
    return value, size
