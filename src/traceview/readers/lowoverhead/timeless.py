"""The events of an all-methods dump (ART's `DumpBuffer`, format.md §1.8): no times at all, one
SLEB128 per event, all blocks decoded at once.

ART's ring holds one word per event: the `ArtMethod*` on entry, the literal 1 on exit. The dump
writes, per block with `prev` = 0: entry -> `ptr - prev`; exit -> 1 after an entry (or first),
0 after an exit; then `prev` := the word. So an event is an exit when the running parity of
its deltas is odd (a cumulative XOR), and an entry's pointer is a cumulative sum over its run
of entries, restarted after every exit (from 1) and at every block (from 0).

The ring has 2048 slots; the dump reads 2047 of them, top-down, ignoring where it was being
written. A thread with 2047 events filled it and (almost surely) wrapped: its first event is
the oldest slot, from the start of tracing, the others are the newest events followed by older
ones, spliced at a place the dump does not record (`ring_seams`).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from traceview.model import Diagnostic, TraceFormatError
from traceview.readers.lowoverhead.packets import Block
from traceview.readers.lowoverhead.timed import Events, block_values, count_check
from traceview.readers.v2.leb128 import segmented_cumsum

__all__ = ["RING_EVENTS", "decode_timeless", "ring_seams"]

RING_EVENTS = 2047  # kAlwaysOnTraceBufSize - 1: the slots DumpBuffer reads


def decode_timeless(
    data: bytes | memoryview, blocks: list[Block], diags: list[Diagnostic], *, infos: bool
) -> Events:
    """Every complete event of every block: `value` is its position in its block."""
    delta, block = block_values(data, blocks)
    n = len(delta)
    counts = np.bincount(block, minlength=len(blocks)).astype(np.int64)
    count_check(blocks, counts, diags)
    first = np.ones(n, dtype=bool)
    first[1:] = block[1:] != block[:-1]
    # exit_i = XOR of the deltas' parities so far in the block
    parity = (delta & 1).astype(np.int64)
    running = np.cumsum(parity)
    base = np.repeat((running - parity)[first], counts[counts > 0]) if n else running
    exit_ = ((running - base) & 1).astype(bool)
    after_exit = np.zeros(n, dtype=bool)
    after_exit[1:] = exit_[:-1] & ~first[1:]
    _check_exits(delta, exit_, after_exit, diags, infos)
    # entries: runs restarted after every exit (prev = 1) and at every block start (prev = 0)
    entry = np.flatnonzero(~exit_)
    run_start = first[entry] | after_exit[entry]
    d = delta[entry].view(np.uint64).copy()
    d[after_exit[entry]] += np.uint64(1)
    starts = np.flatnonzero(run_start)
    run_counts = np.diff(np.r_[starts, len(entry)]).astype(np.int64)
    method_id = np.zeros(n, dtype=np.uint64)
    method_id[entry] = segmented_cumsum(d, run_counts) if len(entry) else d
    position = np.arange(n, dtype=np.int64) - np.repeat(offsets_of(counts), counts)
    return Events(block.astype(np.int64), position, exit_, method_id)


def offsets_of(counts: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Where each group starts in a flat array grouped by `counts`."""
    out: npt.NDArray[np.int64] = np.cumsum(counts) - counts
    return out


def _check_exits(
    delta: npt.NDArray[np.int64],
    exit_: npt.NDArray[np.bool_],
    after_exit: npt.NDArray[np.bool_],
    diags: list[Diagnostic],
    infos: bool,
) -> None:
    """An exit's delta is 1 after an entry or first in its block, 0 after an exit; anything
    else is damage, or ART's first layout (July-September 2024), whose exits carried their
    method and whose dumps had no infos: refused."""
    want = np.where(after_exit, 0, 1)
    bad = int(np.count_nonzero(exit_ & (delta != want)))
    exits = int(np.count_nonzero(exit_))
    if not bad:
        return
    if not infos and bad * 2 > exits:
        raise TraceFormatError(
            "an Android 16 all-methods dump in ART's first layout (July-September 2024: exits "
            "carry their method, no thread or method infos): not supported",
            offset=0,
            expected="exit deltas of 0 or 1",
            found=f"{bad} of {exits} exits with other deltas",
        )
    diags.append(
        Diagnostic(
            "bad-exit-delta",
            f"{bad} exit(s) have a delta other than ART's 0 or 1 (damaged bytes); read as exits",
            count=bad,
        )
    )


def ring_seams(blocks: list[Block], ev: Events, diags: list[Diagnostic]) -> npt.NDArray[np.bool_]:
    """Per event, True where a new piece of a wrapped ring starts (the event after a full
    block's first, oldest slot); says what is known about the seams."""
    full = np.array([b.count >= RING_EVENTS for b in blocks], dtype=bool)
    seam = np.zeros(len(ev.block), dtype=bool)
    if not full.any() or not len(seam):
        return seam
    seam = np.asarray(full[ev.block] & (ev.value == 1), dtype=bool)
    wrapped = int(np.count_nonzero(full))
    diags.append(
        Diagnostic(
            "ring-wrapped",
            f"{wrapped} thread(s) filled ART's ring ({RING_EVENTS:,} events), which then "
            "(unless exactly 2,047-2,048 events were recorded) wrapped: each one's first event "
            "is the oldest slot, from the start of tracing, and is set apart (1 seam each); "
            "the rest is the newest events followed by older ones, spliced where the ring was "
            "being written, which the dump does not record: calls across that seam may pair "
            "wrongly, and its unmatched exits are counted as exits without entry",
            count=wrapped,
        )
    )
    return seam
