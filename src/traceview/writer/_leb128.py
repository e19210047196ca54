"""Vectorised LEB128 encoding for the V2 writer: many values in, one byte string out.

Each value's byte length comes from its bit length; bytes are then filled with at most ten
masked scatters (one per byte position). `writer/v2.py` encodes whole runs of records with it.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]
U8 = npt.NDArray[np.uint8]
Mask = npt.NDArray[np.bool_]

MAX_LEB_BYTES = 10


_ULEB_STEPS = np.array([1 << (7 * k) for k in range(1, 10)], dtype=np.uint64)
_SLEB_STEPS = np.array([1 << (7 * k - 1) for k in range(1, 10)], dtype=np.uint64)


def encode(bits: U64, signed: Mask) -> tuple[U8, I64]:
    """LEB128 bytes of every value (SLEB128 where `signed`, else ULEB128) and each length.

    `bits` holds raw 64-bit patterns (an int64 view for signed values).
    """
    bits = np.asarray(bits, dtype=np.uint64)
    n = len(bits)
    if n == 0:
        return np.zeros(0, dtype=np.uint8), np.zeros(0, dtype=np.int64)
    lengths = encoded_lengths(bits, signed)
    width = int(lengths.max())
    # A (values x width) byte matrix, then keep each row's first `length` bytes (row-major).
    mat = np.empty((n, width), dtype=np.uint8)
    for k in range(width):
        mat[:, k] = ((bits >> np.uint64(7 * k)) & np.uint64(0x7F)).astype(np.uint8)
        if k < width - 1:
            mat[:, k] |= np.where(lengths > k + 1, 0x80, 0).astype(np.uint8)
    if width == 10:
        # The 10th byte of a negative SLEB carries the sign: 0x7f, not the lone bit 63.
        negative = signed & (bits >= np.uint64(1 << 63))
        mat[negative, 9] = 0x7F
    keep = np.arange(width) < lengths[:, None]
    return mat[keep], lengths


def encoded_lengths(bits: U64, signed: Mask) -> I64:
    """Bytes per value as SLEB128 (where `signed`) or ULEB128."""
    sval = bits.view(np.int64)
    magnitude = np.where(sval < 0, ~sval, sval).view(np.uint64)
    ulen = np.searchsorted(_ULEB_STEPS, bits, side="right")
    slen = np.searchsorted(_SLEB_STEPS, magnitude, side="right")
    out: I64 = (np.where(signed, slen, ulen) + 1).astype(np.int64)
    return out
