"""Time units of V2 traces: pick the unit, convert to int64 ns, repair the 2025 wall-unit bug
and clamp backwards steps so every thread's clocks are non-decreasing.

Used by `v2/reader.py` after block decoding (format.md §1.6: µs before 2025-03, ns after,
`elapsed-time-nsec` marks ns; the 2025-03..06 ART wrote wall "ns" that were really µs).
"""

from __future__ import annotations

import itertools

import numpy as np
import numpy.typing as npt

from traceview.model import Diagnostic
from traceview.readers.summary import guess_sampling
from traceview.readers.v2.packets import Layout

I64 = npt.NDArray[np.int64]

_NS_START = 10**14  # a header start above this cannot be µs (that is > 3 years of uptime)
_US_START = 10**11  # below this, ns would mean < 100 s since boot: read as µs
_BUG_RATIO = 50  # CPU time exceeding wall time this many times over cannot be real


def unit_of(
    layout: Layout, options: dict[str, str], header: tuple[int, int, int], diags: list[Diagnostic]
) -> str:
    """`us`, `ns` or `ticks` (gamma with a TSC frequency) for the record times."""
    if layout.generation == "alpha":
        return "us"
    if layout.generation == "gamma":
        return "ticks" if header[2] > 0 else "ns"
    if "elapsed-time-nsec" in options:
        return "ns"
    if "elapsed-time-usec" in options:
        return "us"
    start = header[0]
    unit = "us" if 0 < start < _US_START else "ns"
    if start < _NS_START:
        diags.append(
            Diagnostic(
                "units-guessed",
                f"no elapsed-time-nsec/-usec option to tell the time unit; read as {unit} "
                f"from the header start time {start}",
            )
        )
    return unit


def to_ns(values: I64, unit: str, header: tuple[int, int, int]) -> I64:
    """Convert raw record times to int64 ns (`ticks` use the header's TSC start/frequency)."""
    if unit == "us":
        return values * 1000
    if unit == "ns" or len(values) == 0:
        return values
    _, tsc_start, freq = header
    ticks = values
    if 0 < tsc_start <= int(values.min()):
        ticks = values - np.int64(tsc_start)  # absolute counter readings, not deltas
    if freq <= 9 * 10**9:
        whole, part = np.divmod(ticks, np.int64(freq))
        return whole * np.int64(10**9) + part * np.int64(10**9) // np.int64(freq)
    # integer whole seconds; only the sub-second fraction goes through a float (< 1 ns off)
    if freq > 2**63 - 1:  # a u8 no int64 holds: every tick count is below one second
        whole, part = np.zeros_like(ticks), ticks
    else:
        whole, part = np.divmod(ticks, np.int64(freq))
    fraction = np.floor(part.astype(np.float64) * (1e9 / freq)).astype(np.int64)
    return whole * np.int64(10**9) + fraction


def fix_wall_unit_bug(
    block: I64, wall: I64, cpu: I64, elapsed: int | None, diags: list[Diagnostic]
) -> tuple[I64, int | None]:
    """Multiply wall times (and the elapsed time) by 1000 when they are ~1000x too small.

    Per block (records of one thread in order), thread CPU time cannot exceed wall time, so
    Σ CPU span > 50 x Σ wall span over at least 1 ms of CPU is ART's 2025 unit bug.
    """
    if len(block) < 2:
        return wall, elapsed
    first = np.flatnonzero(np.r_[True, block[1:] != block[:-1]])
    last = np.r_[first[1:] - 1, len(block) - 1]
    wall_span = int((wall[last] - wall[first]).clip(min=0).sum())
    cpu_span = int((cpu[last] - cpu[first]).clip(min=0).sum())
    if cpu_span < 10**6 or cpu_span <= _BUG_RATIO * wall_span:
        return wall, elapsed
    diags.append(
        Diagnostic(
            "wall-unit-bug",
            f"wall times are ~1000x smaller than thread CPU times ({wall_span} vs {cpu_span}): "
            "the 2025 ART unit bug (wall written in µs labelled ns); wall x1000",
        )
    )
    return wall * 1000, elapsed * 1000 if elapsed is not None else None


def clamp_backwards(
    block: I64,
    block_thread: I64,
    col: I64,
    name: str,
    diags: list[Diagnostic],
) -> I64:
    """Raise any time that steps back within its thread to the thread's running maximum.

    `block` is each record's block (non-decreasing), `block_thread` each block's thread row:
    steps back can only happen inside a block or between two blocks of one thread, so the
    common clean case costs two passes and a loop over blocks, never a sort.
    """
    if len(col) < 2:
        return col
    inside = bool(np.any((col[1:] < col[:-1]) & (block[1:] == block[:-1])))
    if not inside:
        first = np.flatnonzero(np.r_[True, block[1:] != block[:-1]])
        last = np.r_[first[1:] - 1, len(block) - 1]
        heads, tails = col[first].tolist(), col[last].tolist()
        owners = block_thread[block[first]].tolist()
        latest: dict[int, int] = {}
        for owner, head, tail in zip(owners, heads, tails, strict=True):
            if head < latest.get(owner, head):
                inside = True
                break
            latest[owner] = tail
        if not inside:
            return col
    thread = block_thread[block]
    order = np.argsort(thread, kind="stable")
    t, c = thread[order], col[order]
    starts = np.flatnonzero(np.r_[True, t[1:] != t[:-1]])
    fixed = c.copy()
    for s, e in itertools.pairwise(np.r_[starts, len(c)]):
        np.maximum.accumulate(fixed[s:e], out=fixed[s:e])
    count = int(np.count_nonzero(fixed != c))
    out = np.empty_like(col)
    out[order] = fixed
    diags.append(
        Diagnostic(
            "time-backwards",
            f"{count} {name} time(s) step back within their thread; raised to the previous time",
            count=count,
        )
    )
    return out


def sampling(block: I64, col: I64) -> tuple[bool, float | None]:
    """Guess a sampled trace from one clock (ns): records of one sample share a time (ties)
    and samples are >= ~100 µs apart (format.md §1.9); returns (sampled, interval µs).

    Looks at the first 2M steps inside blocks, the same test as the V1 readers make.
    """
    n = min(len(col), 2_000_001)
    if n < 21:
        return False, None
    same = block[1:n] == block[: n - 1]
    d = (col[1:n] - col[: n - 1])[same] / 1000.0
    return guess_sampling(d)
