"""The events of a long-running dump's blocks (format.md §1.8), all decoded at once, and the
unit their times are in.

Per event an SLEB128 delta of `time << 1 | is_exit`, and for an entry an SLEB128 delta of its
`ArtMethod*`; both running values restart at 0 per block. Which LEB is a time and which a
method comes from the prefix scan in `scan.py`, never a per-event loop. The unit changed over
ART's history and is told from the bytes (`time_unit`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from traceview.model import Diagnostic
from traceview.readers.lowoverhead.packets import Block, Packets
from traceview.readers.lowoverhead.scan import states_before
from traceview.readers.v2.leb128 import decode, segmented_cumsum

__all__ = ["Events", "TimeUnit", "decode_timed", "time_unit"]

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]

COUNTER_HZ = 24_576_000  # ART's "typical" counter frequency (trace_profile.h), for raw ticks
_US_BELOW = 10**8  # a median kept call under 100 ms read as ns is below any ART threshold


@dataclass
class Events:
    """Decoded events, grouped by block in file order: `value` is the time (long-running) or
    the position in the block's thread (all methods)."""

    block: I64
    value: I64
    exit: npt.NDArray[np.bool_]
    method_id: U64  # 0 for exits


@dataclass(frozen=True)
class TimeUnit:
    """What a dump's times count: `name` ("ns", "us" or "ticks"), how to turn a span of them
    into ns (`numerator / denominator`), and the reason for the verdict (a diagnostic text)."""

    name: str
    numerator: int
    denominator: int
    why: str

    def to_ns(self, span: I64) -> I64:
        """Spans (non-negative, relative to an origin) in ns, exact while the product fits
        64 bits, else through float64."""
        num, den = self.numerator, self.denominator
        if num == den:
            return span
        if not len(span) or int(span.max()) <= ((1 << 63) - 1) // num:
            out: I64 = span * np.int64(num) // np.int64(den)
            return out
        return np.minimum(span.astype(np.float64) * (num / den), 2.0**62).astype(np.int64)


def block_values(data: bytes | memoryview, blocks: list[Block]) -> tuple[I64, I64]:
    """Every complete signed LEB128 of every block's entries and the block it lies in; one
    that runs past its block's end (a cut block's last) or is overlong is dropped."""
    buf = np.frombuffer(data, dtype=np.uint8)
    parts = [buf[b.start : b.end] for b in blocks]
    payload = np.concatenate(parts) if parts else np.zeros(0, np.uint8)
    lengths = np.array([b.end - b.start for b in blocks], dtype=np.int64)
    offsets = np.cumsum(lengths) - lengths
    lebs = decode(payload)
    block = np.searchsorted(offsets, lebs.start, side="right") - 1
    inside = (lebs.start + lebs.length) <= (offsets + lengths)[block] if len(block) else block > 0
    keep = inside & ~lebs.overlong
    value: I64 = lebs.signed()[keep]
    return value, block[keep]


def decode_timed(data: bytes | memoryview, blocks: list[Block], diags: list[Diagnostic]) -> Events:
    """Every complete event of every block, counted against the block headers."""
    value, block = block_values(data, blocks)
    first = np.ones(len(block), dtype=bool)
    first[1:] = block[1:] != block[:-1]
    is_time = states_before((value & 1).astype(np.uint8), first) < 2
    t_idx, m_idx = np.flatnonzero(is_time), np.flatnonzero(~is_time)
    t_block = block[t_idx]
    t_counts = np.bincount(t_block, minlength=len(blocks)).astype(np.int64)
    m_counts = np.bincount(block[m_idx], minlength=len(blocks)).astype(np.int64)
    time_action = segmented_cumsum(value[t_idx].view(np.uint64), t_counts).view(np.int64)
    method = segmented_cumsum(value[m_idx].view(np.uint64), m_counts)
    exit_ = (time_action & 1).astype(bool)
    # An entry whose method LEB is missing (its block was cut after the time) is dropped.
    entry_pos = np.flatnonzero(~exit_)
    followed = np.searchsorted(m_idx, t_idx[entry_pos] + 1)
    ok = followed < len(m_idx)
    ok[ok] = m_idx[followed[ok]] == t_idx[entry_pos[ok]] + 1
    has_method = np.zeros(len(t_idx), dtype=bool)
    has_method[entry_pos[ok]] = True
    method_id = np.zeros(len(t_idx), dtype=np.uint64)
    method_id[entry_pos[ok]] = method[followed[ok]]
    valid = exit_ | has_method
    count_check(blocks, np.bincount(t_block[valid], minlength=len(blocks)), diags)
    return Events(
        t_block[valid].astype(np.int64), time_action[valid] >> 1, exit_[valid], method_id[valid]
    )


def count_check(blocks: list[Block], got: npt.NDArray[np.integer], diags: list[Diagnostic]) -> None:
    """Say how many blocks decoded to another number of events than their header announces."""
    announced = np.array([b.count for b in blocks], dtype=np.int64)
    short = int(np.count_nonzero(got != announced))
    if short:
        diags.append(
            Diagnostic(
                "block-count-mismatch",
                f"{short} entry block(s) decode to a different number of events than their "
                f"header says ({int(announced.sum())} announced, {int(got.sum())} read)",
                count=short,
            )
        )


def time_unit(found: Packets, time: I64, exit_: npt.NDArray[np.bool_], thread: I64) -> TimeUnit:
    """The unit of a long-running dump's times (events sorted by thread, then time).

    ART wrote raw counter ticks until March 2025 (those dumps also name their threads, and
    some have a text trailer), then ns, which were really µs until 2025-06-11 (a scale
    factor of 10^6 for 10^9). A summary packet exists only after the fix. Between the last
    two, the kept calls tell: ART keeps calls of at least 2^22-2^23 ticks (170-341 ms at
    24.576 MHz), so a median closed leaf call under 100 ms read as ns means µs."""
    if found.summaries:
        return TimeUnit(
            "ns", 1, 1, "times in ns (the dump has a summary packet: ART after 2025-06)"
        )
    if found.thread_names or found.trailer == "text":
        return TimeUnit(
            "ticks",
            10**9 // math.gcd(10**9, COUNTER_HZ),
            COUNTER_HZ // math.gcd(10**9, COUNTER_HZ),
            "times are raw counter ticks (a long-running dump that names its threads: ART "
            f"before 2025-03-04); converted to ns at an assumed {COUNTER_HZ:,} Hz, ART's "
            "typical counter (other devices: 19.2 MHz or 1 GHz), so durations may be off by "
            "that ratio",
        )
    leaf = (~exit_[:-1]) & exit_[1:] & (thread[1:] == thread[:-1])
    before_first_exit = _before_first_exit(exit_, thread)
    leaf &= ~before_first_exit[:-1]  # entered on the stack at the start: not filtered by ART
    spans = (time[1:] - time[:-1])[leaf]
    if not len(spans):
        return TimeUnit("ns", 1, 1, "times read as ns (no closed call tells ns from ART's µs)")
    median = int(np.median(spans))
    if median < _US_BELOW:
        return TimeUnit(
            "us",
            1000,
            1,
            "times are µs written as ns (ART's scale bug of March-June 2025: the median kept "
            f"call would last {median:,} ns, shorter than ART keeps); multiplied by 1000",
        )
    return TimeUnit("ns", 1, 1, "times in ns (ART after June 2025, or its kept calls say so)")


def _before_first_exit(exit_: npt.NDArray[np.bool_], thread: I64) -> npt.NDArray[np.bool_]:
    """True for the events of each thread before its first exit."""
    n = len(exit_)
    if n == 0:
        return np.zeros(0, dtype=bool)
    starts = np.flatnonzero(np.r_[True, thread[1:] != thread[:-1]])
    run = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, n]))
    seen = np.maximum.accumulate(np.where(exit_, run, -1))
    out: npt.NDArray[np.bool_] = seen < run
    return out
