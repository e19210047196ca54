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


def encode(bits: U64, signed: Mask) -> tuple[U8, I64]:
    """LEB128 bytes of every value (SLEB128 where `signed`, else ULEB128) and each length.

    `bits` holds raw 64-bit patterns (an int64 view for signed values).
    """
    bits = np.asarray(bits, dtype=np.uint64)
    n = len(bits)
    if n == 0:
        return np.zeros(0, dtype=np.uint8), np.zeros(0, dtype=np.int64)
    lengths = encoded_lengths(bits, signed)
    out = np.empty(int(lengths.sum()), dtype=np.uint8)
    offsets = np.zeros(n, dtype=np.int64)
    np.cumsum(lengths[:-1], out=offsets[1:])
    sval = bits.view(np.int64)
    for k in range(int(lengths.max())):
        idx = np.flatnonzero(lengths > k)
        # Signed values shift arithmetically so a 10th byte carries the sign (0x7f if < 0).
        arith = (sval[idx] >> (7 * k)).view(np.uint64)
        shifted = np.where(signed[idx], arith, bits[idx] >> np.uint64(7 * k))
        byte = (shifted & np.uint64(0x7F)).astype(np.uint8)
        byte[lengths[idx] > k + 1] |= 0x80
        out[offsets[idx] + k] = byte
    return out, lengths


def encoded_lengths(bits: U64, signed: Mask) -> I64:
    """Bytes per value as SLEB128 (where `signed`) or ULEB128."""
    sval = bits.view(np.int64)
    magnitude = np.where(sval < 0, ~sval, sval).view(np.uint64)
    nbits: I64 = np.where(signed, _bit_length(magnitude) + 1, np.maximum(_bit_length(bits), 1))
    out: I64 = np.minimum((nbits + 6) // 7, MAX_LEB_BYTES).astype(np.int64)
    return out


def _bit_length(values: U64) -> I64:
    out = np.zeros(len(values), dtype=np.int64)
    rest = values.copy()
    for step in (32, 16, 8, 4, 2, 1):
        big = rest >= (np.uint64(1) << np.uint64(step))
        out[big] += step
        rest[big] >>= np.uint64(step)
    out += (rest > 0).astype(np.int64)
    return out
