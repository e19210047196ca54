"""Compiled (numba) decoding of V1 method records (readers/v1/records.py): one pass over a
chunk of the file's records, straight from its bytes, into the event columns.

`ids` maps each record's thread id and method value to rows through the reader's lookup
tables (a dense table over `id >> 2`, or sorted keys for sparse ids) and splits the action,
stopping at the first id the tables do not know (the reader then decodes that chunk with
numpy, which adds new rows). `times` unwraps one u32 µs clock per thread and clamps time going
backwards to the thread's running maximum, carrying each thread's state into the next chunk,
exactly as `readers.v1.clocks.ThreadClock.apply` does, and writes ns; it finds the thread rows
itself, so it runs beside `ids` (readers/v1/compiled.py). The record fields are read through
strided views of the chunk (no copy per field).

Imported by the reader only for chunks past the first ~200k records of each clock (those feed
its statistical checks) when numba is at hand.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.kernels.jit import njit

I64 = npt.NDArray[np.int64]
Ints = npt.NDArray[Any]

WRAP = 1 << 32
HALF = 1 << 31


@njit
def ids(
    tid: Ints,
    mval: Ints,
    tlut: Ints,
    methods: tuple[Ints, int, Ints, Ints],
    out: tuple[Ints, Ints, Ints],
) -> tuple[int, int]:
    """Thread rows, method rows and actions of records `tid`/`mval` into `out` (thread,
    method, action columns of the chunk); `methods`: the dense table (empty when none), its
    first key, and the sorted keys and their rows. Returns how many records were decoded (all,
    or up to the first unknown id) and how many had action 3 (read as an exit)."""
    mlut, mlo, keys, rows = methods
    thread, method, action = out
    bad = 0
    for i in range(len(tid)):
        row = tlut[tid[i]]
        if row < 0:
            return i, bad
        v = mval[i]
        key = np.int64(v >> 2)
        m = -1
        if len(mlut) and 0 <= key - mlo < len(mlut):
            m = mlut[key - mlo]
        if m < 0 and len(keys):
            lo, hi = 0, len(keys)
            while lo < hi:
                mid = (lo + hi) >> 1
                if np.int64(keys[mid]) < key:
                    lo = mid + 1
                else:
                    hi = mid
            if lo < len(keys) and np.int64(keys[lo]) == key:
                m = rows[lo]
        if m < 0:
            return i, bad
        a = v & 3
        if a == 3:
            bad += 1
            a = 1
        thread[i] = row
        method[i] = m
        action[i] = a
    return len(tid), bad


@njit
def times(
    raw: Ints, tid: Ints, tlut: Ints, state: tuple[I64, I64, I64], out: I64
) -> tuple[int, int, int]:
    """One clock of a chunk: `raw` u32 µs per record, `tid` their thread ids (rows through
    `tlut`, as `ids` finds them); `state`: per thread row the last unwrapped µs (-1 before its
    first record), the running maximum and the first raw value, updated. Writes the clamped ns
    into `out` (empty: the state alone is carried). Returns how many records were decoded (all,
    or up to the first unknown thread id), the wraps and the clamped times."""
    last, cmax, first = state
    wraps = 0
    clamped = 0
    write = len(out) > 0
    for i in range(len(raw)):
        t = tlut[tid[i]]
        if t < 0:
            return i, wraps, clamped
        r = np.int64(raw[i])
        prev = last[t]
        if prev < 0:
            first[t] = r
            val = r
            top = val
        else:
            d = r - (prev & (WRAP - 1))
            if d < -HALF:
                d += WRAP
                wraps += 1
            val = prev + d
            top = cmax[t]
            if val >= top:
                top = val
            else:
                clamped += 1
        last[t] = val
        cmax[t] = top
        if write:
            out[i] = top * 1000
    return len(raw), wraps, clamped
