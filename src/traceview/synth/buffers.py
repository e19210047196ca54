"""ART's per-thread trace buffers (ART >= 2023, format.md §1.3-1.4) applied to generated
records: the file order they produce, and what a full trace buffer drops.

Each thread fills a buffer of `size` records and flushes it as one chunk when full; the rest
is flushed at stop in thread order. With a trace buffer of `capacity` records, the first chunk
that does not fit is dropped, `data-file-overflow` becomes true and tracing stops a moment
later; records still buffered are flushed at stop if they fit. A dropped chunk leaves a gap in
the middle of its thread: exits whose enters were in it, enters that never exit.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]
GRACE_US = 2000  # events still recorded between the dropped flush and the listeners' removal


def flush_order(
    order: I64, wall: I64, lens: I64, size: int, capacity: int | None = None
) -> tuple[I64, bool]:
    """Indices of the records kept, in file order, and whether the buffer overflowed.

    `order` holds the records to place (indices into the thread-major arrays, any order),
    `wall` their µs times, `lens` each thread's record count in those arrays.
    """
    kept = np.sort(order)  # thread-major, each thread in time order
    if not len(kept):
        return kept, False
    thread = np.searchsorted(np.cumsum(lens), kept, side="right")
    starts = np.flatnonzero(np.r_[True, thread[1:] != thread[:-1]])
    ends = np.r_[starts[1:], len(kept)].astype(np.int64)
    rows = thread[starts].tolist()
    full: list[tuple[int, int, int, int]] = []  # flush time, thread, [a, b) in kept
    rest: dict[int, tuple[int, int]] = {}
    for t, lo, hi in zip(rows, starts.tolist(), ends.tolist(), strict=True):
        rest[t] = (lo, hi)
        for a in range(lo, hi, size):
            b = min(a + size, hi)
            if b - a == size:
                full.append((int(wall[kept[b - 1]]), t, a, b))
                rest[t] = (b, hi)
    full.sort()
    if capacity is None:
        pieces = [(a, b) for *_, a, b in full] + [rest[t] for t in sorted(rest)]
        return _take(kept, pieces), False
    return _overflow(kept, wall, full, rest, capacity)


def _overflow(
    kept: I64,
    wall: I64,
    full: list[tuple[int, int, int, int]],
    rest: dict[int, tuple[int, int]],
    capacity: int,
) -> tuple[I64, bool]:
    pieces: list[tuple[int, int]] = []
    used, stop, overflow = 0, None, False
    ends = {t: hi for t, (_, hi) in rest.items()}
    pos = {t: lo for t, (lo, _) in rest.items()}  # where each thread's buffer starts at stop
    for _, t, a, _ in full:
        pos[t] = min(pos[t], a)
    for when, t, a, b in full:
        pos[t] = b  # flushed, or dropped: either way gone from the buffer
        if used + (b - a) > capacity:  # dropped; tracing stops a moment later
            stop, overflow = when + GRACE_US, True
            break
        pieces.append((a, b))
        used += b - a
    for t in sorted(rest):
        a, hi = pos[t], ends[t]
        b = hi if stop is None else a + int(np.searchsorted(wall[kept[a:hi]], stop, "right"))
        if b > a:
            if used + (b - a) > capacity:
                overflow = True
                continue
            pieces.append((a, b))
            used += b - a
    return _take(kept, pieces), overflow


def _take(kept: I64, pieces: list[tuple[int, int]]) -> I64:
    return np.concatenate([kept[a:b] for a, b in pieces]) if pieces else kept[:0]
