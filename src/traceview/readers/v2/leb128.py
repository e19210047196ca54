"""Vectorised LEB128 decoding for the V2 reader: a byte array in, one value per LEB out.

A LEB ends at every byte below 0x80, so the terminators give every LEB's start and length at
once; values are assembled with at most ten masked gathers (one per byte position), never a
per-value Python loop. `blocks.py` and `gamma.py` use it on whole payload runs
and turn the decoded deltas into values with `segmented_cumsum` (the encoder lives in
`writer/_leb128.py`: readers and writer do not import each other).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

U8 = npt.NDArray[np.uint8]
I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]

MAX_LEB_BYTES = 10  # 64 bits / 7 bits per byte, rounded up


@dataclass(frozen=True)
class Lebs:
    """Every complete LEB of a byte run: `start` offsets, `length` in bytes, raw `value` bits.

    `value` holds the low 64 bits of the unsigned reading (overlong LEBs are truncated and
    flagged in `overlong`); `last` is each LEB's terminating byte (for sign extension). Bytes
    after the last terminator (an unfinished LEB) are not counted.
    """

    start: I64
    length: I64
    value: U64
    last: U8
    overlong: npt.NDArray[np.bool_]

    def __len__(self) -> int:
        return len(self.start)

    def signed(self) -> I64:
        """The values read as SLEB128 (sign-extended from the last byte's 0x40 bit)."""
        return sign_extend(self.value, self.length, self.last)


_MASK32 = np.array([0, 0x7F, 0x3FFF, 0x1FFFFF, 0xFFFFFFF], dtype=np.uint32)


def decode(buf: U8) -> Lebs:
    """Decode every complete LEB128 in `buf` (unsigned bits; see `Lebs.signed`)."""
    buf = np.asarray(buf, dtype=np.uint8)
    ends = np.flatnonzero(buf < 0x80)
    n = len(ends)
    starts = np.empty(n, dtype=np.int64)
    if n:
        starts[0] = 0
        starts[1:] = ends[:-1] + 1
    lengths = ends - starts + 1
    # Fast path for the first four bytes (28 bits, nearly every LEB): one unaligned u32
    # gather per LEB, then squeeze out the continuation bits with shifts and masks.
    padded = np.concatenate([buf, np.zeros(4, dtype=np.uint8)])
    words = np.ndarray((len(buf) + 1,), dtype="<u4", buffer=padded, offset=0, strides=(1,))
    w = words[starts]
    low = (
        (w & np.uint32(0x7F))
        | ((w >> np.uint32(1)) & np.uint32(0x3F80))
        | ((w >> np.uint32(2)) & np.uint32(0x1FC000))
        | ((w >> np.uint32(3)) & np.uint32(0xFE00000))
    )
    low &= _MASK32[np.minimum(lengths, 4)]
    value = low.astype(np.uint64)
    longer = np.flatnonzero(lengths > 4)
    k = 4
    while longer.size and k < MAX_LEB_BYTES:
        part = (buf[starts[longer] + k] & 0x7F).astype(np.uint64)
        value[longer] |= part << np.uint64(7 * k)
        longer = longer[lengths[longer] > k + 1]
        k += 1
    overlong = lengths > MAX_LEB_BYTES
    last = buf[ends]
    return Lebs(start=starts, length=lengths, value=value, last=last, overlong=overlong)


def sign_extend(value: U64, length: I64, last: U8) -> I64:
    """Read unsigned LEB bits as SLEB128: fill the high bits when the last byte has 0x40."""
    bits = np.minimum(7 * length, 64).astype(np.uint64)
    negative = ((last & 0x40) != 0) & (bits < 64)
    out = value.copy()
    if negative.any():
        fill = ~np.uint64(0) << bits[negative]
        out[negative] |= fill
    return out.view(np.int64)


def segmented_cumsum(deltas: U64, counts: I64) -> U64:
    """Cumulative sums restarting at every block (mod 2^64, as the writer's u64 math): each
    block's first delta is lowered by the previous block's total, so one cumsum does it."""
    if len(deltas) == 0:
        return deltas.copy()
    starts = (np.cumsum(counts) - counts)[counts > 0]
    x = deltas.copy()
    if len(starts) > 1:
        totals = np.add.reduceat(deltas, starts, dtype=np.uint64)
        x[starts[1:]] -= totals[:-1]
    return np.cumsum(x, dtype=np.uint64)
