"""The protobuf wire encoding, as much of it as `pprof.py` and `perfetto.py` write: varints,
length-delimited fields, packed repeated integers. Written here so traceview needs no protobuf
package.

Field keys are `(number << 3) | wire type`; wire type 0 is a varint, 2 is length-delimited.
Negative int64 values take ten bytes (two's complement), as protobuf's `int64` does.
"""

from __future__ import annotations

from collections.abc import Iterable

VARINT = 0
LEN = 2


def varint(value: int) -> bytes:
    """The base-128 varint of `value` (a negative one as its 64-bit two's complement)."""
    if value < 0:
        value += 1 << 64
    if value < 0x80:
        return bytes((value,))
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def key(field: int, wire: int) -> bytes:
    """A field's key."""
    return varint((field << 3) | wire)


def int_field(field: int, value: int) -> bytes:
    """A varint field (left out when 0, protobuf's default)."""
    return key(field, VARINT) + varint(value) if value else b""


def varint_field(field: int, value: int) -> bytes:
    """A varint field, written even when 0 (a proto2 `optional` field that is present)."""
    return key(field, VARINT) + varint(value)


def bytes_field(field: int, data: bytes) -> bytes:
    """A length-delimited field (a string, bytes or an embedded message)."""
    return key(field, LEN) + varint(len(data)) + data


def packed(field: int, values: Iterable[int]) -> bytes:
    """A packed repeated varint field (left out when empty)."""
    body = b"".join(varint(v) for v in values)
    return bytes_field(field, body) if body else b""


__all__ = ["bytes_field", "int_field", "key", "packed", "varint", "varint_field"]
