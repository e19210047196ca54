"""Decode V2-γ entry blocks (Perfetto's layout, format.md §1.7; provisional).

A record is SLEB Δ(ts<<2|action), [SLEB Δcpu], then SLEB Δmethod on entries only, so where
a record starts depends on the actions before it: one lean loop per record finds the starts
(two integer ops each), everything else is numpy: segmented cumulative sums, and the exits'
methods by stack matching on depth levels (an exit pops the last entry at its level; an exit
on an empty stack takes the method of the last entry of its block, as Perfetto does).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from traceview.readers.v2.leb128 import decode, segmented_cumsum
from traceview.readers.v2.packets import Block, Layout

U8 = npt.NDArray[np.uint8]
I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]


def decode_gamma(
    arr: U8, blocks: list[Block], layout: Layout
) -> tuple[I64, U64, U8, list[I64], list[tuple[int, str]]]:
    """(block, method, action, times, damaged) for `blocks`; times[0] ts ticks, [1] cpu."""
    need = layout.clocks  # LEBs before the optional method: ts|action, and cpu when dual
    n = len(arr)
    parts: list[tuple[int, I64, npt.NDArray[np.bool_], I64]] = []
    damaged: list[tuple[int, str]] = []
    for bi, b in enumerate(blocks):
        chunk = arr[b.payload : min(b.end, n)]
        lebs = decode(chunk)
        bad = np.flatnonzero(lebs.overlong)
        limit = int(bad[0]) if len(bad) else len(lebs)
        values = lebs.signed()[:limit]
        starts, entry = _structure((values & 3).tolist(), b.count, need)
        used = (starts[-1] + need + int(entry[-1])) if len(starts) else 0
        if (
            len(starts) < b.count
            or used != len(lebs)
            or b.end > n
            or (len(chunk) and chunk[-1] >= 0x80)
        ):
            why = "truncated at end of file" if b.end > n else "does not match its header"
            damaged.append((b.offset, f"block {why}: kept {len(starts)} of {b.count} records"))
        parts.append((bi, starts, entry, values))
    counts = np.array([len(p[1]) for p in parts], dtype=np.int64)
    block_of = np.repeat(np.array([p[0] for p in parts], dtype=np.int64), counts)
    entry = np.concatenate([p[2] for p in parts]) if parts else np.zeros(0, dtype=bool)
    tsa_d = _gather([(p[3], p[1]) for p in parts])
    tsa = _signed_cumsum(tsa_d, counts).view(np.uint64)
    action = (tsa & np.uint64(3)).astype(np.uint8)
    times = [(tsa >> np.uint64(2)).view(np.int64)]
    if need == 2:
        times.append(_signed_cumsum(_gather([(p[3], p[1] + 1) for p in parts]), counts))
    method_d = _gather([(p[3], p[1][p[2]] + need) for p in parts])
    entries_per_block = np.array([int(p[2].sum()) for p in parts], dtype=np.int64)
    entry_method = _signed_cumsum(method_d, entries_per_block).view(np.uint64)
    tids = np.array([blocks[p[0]].tid for p in parts], dtype=np.int64)
    method = _exit_methods(entry, entry_method, counts, np.repeat(tids, counts))
    return block_of, method, action, times, damaged


def _structure(low: list[int], count: int, need: int) -> tuple[I64, npt.NDArray[np.bool_]]:
    """Record starts (LEB index) and entry flags: the action is the running sum of the low
    two bits of the ts|action deltas; an entry carries one more LEB (its method)."""
    limit = len(low)
    starts: list[int] = []
    entries: list[bool] = []
    p = state = 0
    while len(starts) < count and p + need <= limit:
        state = (state + low[p]) & 3
        if state == 0:
            if p + need >= limit:
                break
            starts.append(p)
            entries.append(True)
            p += need + 1
        else:
            starts.append(p)
            entries.append(False)
            p += need
    return np.array(starts, dtype=np.int64), np.array(entries, dtype=bool)


def _gather(pieces: list[tuple[I64, I64]]) -> I64:
    if not pieces:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate([values[idx] for values, idx in pieces])


def _signed_cumsum(deltas: I64, counts: I64) -> I64:
    """`segmented_cumsum` of signed deltas (two's complement wrap)."""
    return segmented_cumsum(deltas.view(np.uint64), counts).view(np.int64)


def _exit_methods(entry: npt.NDArray[np.bool_], entry_method: U64, counts: I64, tid: I64) -> U64:
    """Every record's method: entries their own, exits the entry they pop (per thread)."""
    n = len(entry)
    method = np.zeros(n, dtype=np.uint64)
    method[entry] = entry_method
    # Fallback for exits on an empty stack: the last entry method of the same block, or 0.
    block_start = np.repeat(np.cumsum(counts) - counts, counts)
    last_entry = np.where(entry, np.arange(n), -1)
    np.maximum.accumulate(last_entry, out=last_entry)
    fallback_ok = last_entry >= block_start
    fallback = np.where(fallback_ok, method[np.maximum(last_entry, 0)], np.uint64(0))
    for thread in np.unique(tid).tolist():
        rows = np.flatnonzero(tid == thread)
        method[rows] = _match(entry[rows], method[rows], fallback[rows])
    return method


def _match(entry: npt.NDArray[np.bool_], method: U64, fallback: U64) -> U64:
    """Stack matching for one thread: depth with a floor at 0 (an exit on an empty stack
    pops nothing); an exit at depth d pops the last entry pushed at level d - 1."""
    n = len(entry)
    out = method.copy()
    step = np.where(entry, 1, -1)
    total = np.cumsum(step)
    after = total - np.minimum(np.minimum.accumulate(total), 0)
    before = np.concatenate([[0], after[:-1]])
    pops = ~entry & (before > 0)
    out[~entry & ~pops] = fallback[~entry & ~pops]
    if not pops.any():
        return out
    keep = entry | pops
    idx = np.flatnonzero(keep)
    level = np.where(entry, before, before - 1)[idx]
    order = np.lexsort((idx, level))
    lv, ix, is_entry = level[order], idx[order], entry[idx][order]
    span = np.int64(n + 1)
    key = lv * span + np.where(is_entry, ix + 1, 0)
    last = np.maximum.accumulate(key) - lv * span - 1  # last entry at this level so far
    exits = ~is_entry
    out[ix[exits]] = method[last[exits]]
    return out
