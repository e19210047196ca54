"""A compiled walk over a Perfetto trace's top-level packets (`export --merge-into`): checks
that the bytes are a whole `Trace` (repeated `packet`, field 1) and finds the packet sequence
ids and track uuids already in use, so the method trace's packets take new ones. Reads the
bytes where they are (a memory map): nothing is copied. Imports numba (`analysis.jit`).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from traceview.analysis.kernels.jit import njit

U8 = npt.NDArray[np.uint8]


@njit
def _read(data: U8, pos: int, end: int) -> tuple[np.uint64, int]:
    """The varint at `pos` and the position after it (-1: it runs past `end` or 10 bytes)."""
    u = np.uint64(0)
    shift = np.uint64(0)
    while pos < end and shift < np.uint64(70):
        b = np.uint64(data[np.uint64(pos)])
        pos += 1
        u |= (b & np.uint64(0x7F)) << shift
        if b < np.uint64(0x80):
            return u, pos
        shift += np.uint64(7)
    return u, -1


@njit
def _scan(data: U8, lo: np.uint64, hi: np.uint64) -> tuple[int, int, np.uint64, np.uint64]:
    """Walk a Perfetto `Trace`: (status, byte offset, largest sequence id, largest track uuid
    in [lo, hi) plus one, or `lo`). Status 0 is a whole trace; 1 a key that is not a packet
    at the offset; 2 a packet or field running past the end; 3 a malformed field."""
    n = len(data)
    pos = 0
    seq = np.uint64(0)
    free = lo
    while pos < n:
        start = pos
        key, pos = _read(data, pos, n)
        if pos < 0:
            return 2, start, seq, free
        if key != np.uint64(0x0A):
            return 1, start, seq, free
        size, pos = _read(data, pos, n)
        if pos < 0 or size > np.uint64(n - pos):
            return 2, start, seq, free
        end = pos + int(size)
        while pos < end:
            field = pos
            key, pos = _read(data, pos, end)
            if pos < 0:
                return 3, field, seq, free
            wire = key & np.uint64(7)
            number = key >> np.uint64(3)
            if wire == np.uint64(0):
                value, pos = _read(data, pos, end)
                if pos < 0:
                    return 3, field, seq, free
                if number == np.uint64(10) and value > seq:  # trusted_packet_sequence_id
                    seq = value
            elif wire == np.uint64(2):
                size, pos = _read(data, pos, end)
                if pos < 0 or size > np.uint64(end - pos):
                    return 3, field, seq, free
                stop = pos + int(size)
                if number == np.uint64(60):  # track_descriptor: its uuid (field 1)
                    inner = pos
                    while inner < stop:
                        key, inner = _read(data, inner, stop)
                        if inner < 0:
                            break
                        w = key & np.uint64(7)
                        if w == np.uint64(0):
                            value, inner = _read(data, inner, stop)
                            if inner < 0:
                                break
                            if key == np.uint64(8) and lo <= value < hi and value >= free:
                                free = value + np.uint64(1)
                        elif w == np.uint64(2):
                            size, inner = _read(data, inner, stop)
                            if inner < 0 or size > np.uint64(stop - inner):
                                break
                            inner += int(size)
                        elif w == np.uint64(1):
                            inner += 8
                        elif w == np.uint64(5):
                            inner += 4
                        else:
                            break
                pos = stop
            elif wire == np.uint64(1):
                pos += 8
            elif wire == np.uint64(5):
                pos += 4
            else:
                return 3, field, seq, free
            if pos > end:
                return 3, field, seq, free
    return 0, n, seq, free


def scan(data: U8, lo: int, hi: int) -> tuple[int, int, int, int]:
    """`_scan` of a Perfetto trace's bytes: (status, offset, largest sequence id, first
    uuid at or above `lo` after every track uuid the trace uses in [lo, hi))."""
    status, offset, seq, free = _scan(data, np.uint64(lo), np.uint64(hi))
    return int(status), int(offset), int(seq), int(free)


__all__ = ["scan"]
