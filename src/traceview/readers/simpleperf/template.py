"""The layout simpleperf itself writes, matched for every sample of a group at once.

simpleperf writes a `Sample` as `08 time 10 tid`, then each call-chain entry as
`1a len 08 vaddr 10 file 18 symbol`, then `20 count` and `28 event` when set: every field a
one-byte key and a varint, every entry eight varints. So the ends of all varints of the group
(the bytes without the high bit) give every field at once: a sample of `n` varints holds
`(n - 4) // 8` entries and `(n - 4) % 8` tail varints, and each entry's keys, length and
values sit at fixed varint positions. Every key and length is checked; a sample that differs
anywhere is left to the field-by-field walk (`samples.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]
U8 = npt.NDArray[np.uint8]
Bools = npt.NDArray[np.bool_]
ENTRY, TIME, TID, COUNT, EVENT = 0x1A, 0x08, 0x10, 0x20, 0x28
VADDR, FILE, SYMBOL = 0x08, 0x10, 0x18


@dataclass
class Matched:
    """The samples that follow the layout (`ok`, per record of the group) and their fields;
    entries of sample i are `first[i]:first[i+1]` among the matched ones."""

    ok: Bools
    time: U64
    tid: I64
    count: U64
    has_count: Bools
    event: I64
    first: I64
    vaddr: U64
    file: I64
    symbol: I64


def small(raw: U8, at: I64, size: I64, bits: int = 64) -> U64:
    """Varints of known sizes (1-10 bytes) at offsets `at`, keeping their low `bits`. One-
    and two-byte ones (file ids, most symbol ids) are read without a loop; only longer ones go
    on byte by byte."""
    longest = int(size.max(initial=1))
    value = (raw[at] & 0x7F).astype(np.uint64)
    if longest == 1:
        return value
    two = (size >= 2).astype(np.uint8)
    value |= ((raw[at + 1] & 0x7F) * two).astype(np.uint64) << np.uint64(7)
    going = np.flatnonzero(size > 2)
    k = 2
    while len(going) and 7 * k < bits:
        value[going] |= (raw[at[going] + k] & 0x7F).astype(np.uint64) << np.uint64(7 * k)
        k += 1
        going = going[size[going] > k]
    if bits < 64:
        value &= np.uint64((1 << bits) - 1)
    return value


def _int32(values: U64) -> I64:
    """The low 32 bits as a signed number (a proto int32 sent as a varint)."""
    signed = values.astype(np.int64)
    return ((signed & 0xFFFF_FFFF) ^ 0x8000_0000) - 0x8000_0000


def match(raw: U8, start: I64, stop: I64, loose: Callable[[I64, I64], Bools]) -> Matched:
    """Match the samples whose payloads are `raw[start:stop]` (`raw` padded); `loose(file,
    symbol)` says which frames have no symbol (their addresses are read, no others)."""
    ends = np.flatnonzero(raw < 0x80)
    first_tok = np.searchsorted(ends, start)
    last_tok = np.minimum(np.searchsorted(ends, stop - 1), len(ends) - 1)
    count = last_tok - first_tok + 1
    tail = (count - 4) % 8
    depth = (count - 4 - tail) // 8
    ok = (stop > start) & (count >= 4) & (tail <= 4) & (ends[last_tok] == stop - 1)
    r0 = np.where(ok, first_tok, 0)
    t_end, tid_end = ends[r0 + 1], ends[np.where(ok, r0 + 3, 0)]
    ok &= (raw[start] == TIME) & (raw[t_end + 1] == TID)
    ok &= (t_end - start <= 10) & (tid_end - t_end - 1 <= 10)
    time = small(raw, start + 1, np.where(ok, t_end - start, 1))
    tid = _int32(small(raw, t_end + 2, np.where(ok, tid_end - t_end - 1, 1), 32))
    counted, event, has = _tail(raw, ends, r0 + 4 + 8 * depth, tail, ok)
    # every entry of every sample that still matches
    n = np.where(ok, depth, 0)
    sid = np.repeat(np.arange(len(start)), n)
    # entry k of the group (j-th of its sample) starts at varint r0 + 4 + 8 j
    b = np.repeat(r0 + 4 - 8 * (np.cumsum(n) - n), n) + 8 * np.arange(len(sid))
    p = ends[b - 1] + 1
    e3, e5, e7 = ends[b + 3], ends[b + 5], ends[b + 7]
    length = raw[p + 1].astype(np.int64)
    good = (raw[p] == ENTRY) & (raw[p + 2] == VADDR) & (raw[e3 + 1] == FILE)
    good &= (raw[e5 + 1] == SYMBOL) & (e7 + 1 == p + 2 + length) & (length < 0x80)
    good &= (e3 - p - 2 <= 10) & (e5 - e3 - 1 <= 10) & (e7 - e5 - 1 <= 10)
    if not good.all():
        ok[sid[~good]] = False
        mine = ok[sid]
        p, e3, e5, e7 = p[mine], e3[mine], e5[mine], e7[mine]
    file = _int32(small(raw, e3 + 2, e5 - e3 - 1, 32))
    symbol = _int32(small(raw, e5 + 2, e7 - e5 - 1, 32))
    vaddr = np.zeros(len(p), dtype=np.uint64)
    need = np.flatnonzero(loose(file, symbol))
    vaddr[need] = small(raw, p[need] + 3, e3[need] - p[need] - 2)
    who = np.flatnonzero(ok)
    first = np.concatenate([[0], np.cumsum(depth[who])]).astype(np.int64)
    return Matched(
        ok, time[who], tid[who], counted[who], has[who], event[who], first, vaddr, file, symbol
    )


def _tail(raw: U8, ends: I64, at: I64, tail: I64, ok: Bools) -> tuple[U64, I64, Bools]:
    """The event count and event type after the entries (`tail` varints from token `at`):
    none, one of them, or both in order; `ok` is cleared for any other tail."""
    n = len(at)
    count = np.zeros(n, dtype=np.uint64)
    event = np.zeros(n, dtype=np.int64)
    has = np.zeros(n, dtype=bool)
    for pair in (0, 1):
        here = np.flatnonzero(ok & (tail > 2 * pair))
        key_at = ends[at[here] + 2 * pair - 1] + 1
        v_end = ends[at[here] + 2 * pair + 1]
        key = raw[key_at]
        size = v_end - key_at
        fine = (size <= 10) & ((key == COUNT) | (key == EVENT))
        if pair == 1:
            fine &= (key == EVENT) & has[here]  # `20 count 28 event`, in that order
        ok[here[~fine]] = False
        here, key_at, size, key = here[fine], key_at[fine], size[fine], key[fine]
        value = small(raw, key_at + 1, size)
        is_count = key == COUNT
        count[here[is_count]] = value[is_count]
        has[here[is_count]] = True
        event[here[~is_count]] = _int32(value[~is_count] & np.uint64(0xFFFF_FFFF))
    return count, event, has
