"""The compiled walk of a simpleperf report-sample file's record lengths
(readers/simpleperf/records.py): each record is a u32 length (little-endian) and that many
bytes, until a zero length. The walk is a chain (each length says where the next one is), so
numpy cannot vectorise it. It runs as native code (kernels/native.py): it writes into arrays
its caller made and allocates nothing.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from traceview.analysis.kernels.jit import njit

I64 = npt.NDArray[np.int64]
U8 = npt.NDArray[np.uint8]


@njit
def chain(buf: U8, at: int, starts: I64, sizes: I64) -> tuple[int, int]:
    """Walk the length chain of `buf` from offset `at`, writing each record's payload offset
    and size into `starts` and `sizes`, until they are full or the chain ends (a zero length,
    a length running past the end, or fewer than 4 bytes left: the bytes there say which).
    Returns how many records were written and where the walk stopped."""
    end = len(buf)
    n = 0
    while at + 4 <= end and n < len(starts):
        size = int(
            np.int64(buf[at])
            | (np.int64(buf[at + 1]) << 8)
            | (np.int64(buf[at + 2]) << 16)
            | (np.int64(buf[at + 3]) << 24)
        )
        if size == 0 or size > end - at - 4:
            break
        starts[n] = at + 4
        sizes[n] = size
        n += 1
        at += 4 + size
    return n, at


__all__ = ["chain"]
