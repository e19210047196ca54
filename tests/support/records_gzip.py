"""A gzip of real records (issue 18): a valid regular trace, then its first 8 records again and
again. Every record stays valid, and deflate shrinks the repeats about 300 times, so a small
file inflates far: past `readers.files.RATIO` times its size, well under 4 GiB."""

from __future__ import annotations

import struct
import zlib

from support import hostile

REPEATS = 1 << 16  # copies of the 8 records per compressed block (7 MiB inflated)


def repeated_records(size: int) -> bytes:
    """A gzip of about `size` bytes (at least one block of repeats)."""
    data = hostile.written("regular", records=1000)
    at = data.find(b"SLOW")
    offset = struct.unpack("<H", data[at + 6 : at + 8])[0]
    block = data[at + offset : at + offset + 14 * 8] * REPEATS  # 14-byte v3 records
    comp = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    parts = [comp.compress(data)]
    written = 0
    while written < size:
        parts.append(comp.compress(block))
        written += len(parts[-1])
    parts.append(comp.flush())
    return b"".join(parts)
