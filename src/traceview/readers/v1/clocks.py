"""Per-thread state of one V1 clock across record chunks: 32-bit unwrap and backwards clamp.

Used by `RecordDecoder` (`records.py`) once per clock per chunk, on the chunk's times grouped
by thread row. V1 times are u32 µs: within a thread a drop of more than 2^31 is a wrap (add
2^32), a smaller drop is time going backwards (clamped to the thread's running maximum).
The common case (no wrap, no drop, no carried offset) returns None: the raw values stand.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]
WRAP = 1 << 32
HALF = 1 << 31
_SAMPLE = 200_000


class ThreadClock:
    """Carries for one clock, indexed by thread row: last unwrapped µs, running max, first."""

    def __init__(self, rows: int, *, sample: bool) -> None:
        self.last = np.full(rows, -1, dtype=np.int64)  # -1: thread not seen yet
        self.cmax = np.zeros(rows, dtype=np.int64)
        self.first = np.full(rows, -1, dtype=np.int64)
        self.wraps = 0
        self.backwards = 0
        self.sample = sample
        self.deltas: list[I64] = []
        self.ndeltas = 0

    def grow(self, rows: int) -> None:
        """Make room for thread rows up to `rows`."""
        extra = rows - len(self.last)
        if extra > 0:
            self.last = np.concatenate([self.last, np.full(extra, -1, dtype=np.int64)])
            self.cmax = np.concatenate([self.cmax, np.zeros(extra, dtype=np.int64)])
            self.first = np.concatenate([self.first, np.full(extra, -1, dtype=np.int64)])

    def apply(self, r: npt.NDArray[np.uint32], starts: I64, rows: I64) -> I64 | None:
        """Unwrapped, clamped µs for `r` (one chunk grouped by thread; groups begin at
        `starts`, group g is thread row `rows[g]`), or None when `r` is already right."""
        n = len(r)
        lengths = np.diff(np.append(starts, n))
        ends = starts + lengths - 1
        d = np.empty(n, dtype=np.int64)
        d[0] = 0
        np.subtract(r[1:], r[:-1], out=d[1:], dtype=np.int64)
        prev = self.last[rows]
        seen = prev >= 0
        r0 = r[starts].astype(np.int64)
        low = prev & (WRAP - 1)
        d[starts] = np.where(seen, r0 - low, 0)
        base = np.where(seen, prev - low, 0)  # the multiple of 2^32 carried from earlier wraps
        carried = np.where(seen, self.cmax[rows], 0)
        self.first[rows[~seen]] = r0[~seen]
        if int(d.min()) >= 0 and not base.any() and not (seen & (r0 < carried)).any():
            self._keep_sample(d, starts)
            self.last[rows] = r[ends]
            self.cmax[rows] = r[ends]
            return None
        wrapped = d < -HALF
        if wrapped.any():
            self.wraps += int(np.count_nonzero(wrapped))
            d[wrapped] += WRAP
        self._keep_sample(d, starts)
        back = bool((d < 0).any())
        startval = np.where(seen, prev + d[starts], r0)
        d[starts] = startval
        c = np.cumsum(d)
        offs = np.zeros(len(starts), dtype=np.int64)
        offs[1:] = c[starts[1:] - 1]
        val = c - np.repeat(offs, lengths)
        self.last[rows] = val[ends]
        if back or bool((seen & (startval < carried)).any()):
            v = val.copy()
            v[starts] = np.maximum(v[starts], carried)
            gmin = np.minimum.reduceat(v, starts)
            gmax = np.maximum.reduceat(v, starts)
            goff = np.zeros(len(starts), dtype=np.int64)
            goff[1:] = np.cumsum(gmax - gmin + 1)[:-1]
            shift = np.repeat(goff - gmin, lengths)  # keeps groups apart: one global max-scan
            v += shift
            np.maximum.accumulate(v, out=v)
            v -= shift
            self.backwards += int(np.count_nonzero(v != val))
            val = v
        self.cmax[rows] = val[ends]
        return val

    @property
    def wanting(self) -> bool:
        """True while the sample of steps is still being gathered (from the chunks decoded by
        `apply`, in its order)."""
        return self.sample and self.ndeltas < _SAMPLE

    def _keep_sample(self, d: I64, starts: I64) -> None:
        if self.sample and self.ndeltas < _SAMPLE:
            inner = np.ones(len(d), dtype=bool)
            inner[starts] = False
            kept = d[inner][:_SAMPLE]
            self.deltas.append(kept)
            self.ndeltas += len(kept)

    def span(self) -> int:
        """Σ over threads of (last − first) µs: the wall-unit-bug test compares clocks by it."""
        seen = self.last >= 0
        return int((self.cmax[seen] - self.first[seen]).sum())

    def sample_deltas(self) -> I64 | None:
        """Per-thread steps (µs) over the first ~200k records, or None."""
        return np.concatenate(self.deltas) if self.deltas else None
