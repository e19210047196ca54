"""Decode V2 entry blocks into per-record columns (raw file units), one generation each.

`v2/reader.py` hands over the blocks found by `packets.walk`; beta and alpha payloads are
decoded with whole-array LEB decoding over groups of blocks and segmented cumulative sums;
gamma (provisional, Perfetto's layout) needs a per-record walk because an entry carries one
more LEB than an exit. Damaged blocks are decoded alone and keep their complete records.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from traceview.readers.idmap import IdMap
from traceview.readers.v2.gamma import decode_gamma
from traceview.readers.v2.leb128 import Lebs, decode, segmented_cumsum, sign_extend
from traceview.readers.v2.packets import Block, Layout

U8 = npt.NDArray[np.uint8]
I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]

GROUP_BYTES = 1 << 20  # decode ~1 MiB of payload at a time: ~30 bytes of temporaries per byte


@dataclass
class Records:
    """Decoded records in file order: `block` row per record, `method` id, `action` 0-3,
    `times[0]` the wall (or only) clock and `times[1]` thread-cpu for dual, raw units."""

    block: I64
    method: U64
    action: U8
    times: list[I64]
    damaged: list[tuple[int, str]] = field(default_factory=list)  # (offset, what happened)


def decode_blocks(arr: U8, blocks: list[Block], layout: Layout, alpha_chain: bool) -> Records:
    """Decode `blocks` of `arr` (the whole file) with `layout`.

    `alpha_chain` selects, for alpha, Δmethod against the previous record (True) rather than
    against the block's first record (False, what the earliest ART writer did).
    """
    if layout.generation == "gamma":
        return _gamma(arr, blocks, layout)
    fields = 1 + layout.clocks
    lead = 1 if layout.generation == "alpha" else 0  # alpha's first record is in the header
    damaged: list[tuple[int, str]] = []
    kept: list[int] = []
    parts: list[U64] = []
    # Beta: each group of blocks is summed and written into preallocated columns at once,
    # so only one group's LEBs are ever held (alpha keeps them: it adds header records).
    n = len(arr)  # a record takes at least one byte per field: bounds junk counts
    most = sum(min(b.count, max(min(b.end, n) - b.payload, 0) // fields) for b in blocks)
    out = _Columns(most, fields - 1) if lead == 0 else None
    group: list[Block] = []
    first = size = 0
    for i, b in enumerate(blocks):
        group.append(b)
        size += b.end - b.payload
        if size >= GROUP_BYTES or i == len(blocks) - 1:
            _decode_group(arr, group, fields, lead, kept, parts, damaged)
            if out is not None:
                flat = np.concatenate(parts) if len(parts) > 1 else parts[0]
                out.add(flat, np.array(kept[first:], dtype=np.int64), first, fields)
                parts.clear()
            first = len(kept)
            group, size = [], 0
    if out is not None:
        return out.records(damaged)
    counts = np.array(kept, dtype=np.int64)  # payload records kept per block
    flat = np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)
    return _assemble_alpha(blocks, counts, flat.reshape(-1, fields), layout, alpha_chain, damaged)


class _Columns:
    """Output columns filled group by group (block row, method id, action, times)."""

    def __init__(self, most: int, clocks: int) -> None:
        self.block = np.empty(most, dtype=np.int64)
        self.method = np.empty(most, dtype=np.uint64)
        self.action = np.empty(most, dtype=np.uint8)
        self.times = [np.empty(most, dtype=np.int64) for _ in range(clocks)]
        self.at = 0

    def add(self, flat: U64, counts: I64, first_block: int, fields: int) -> None:
        """Sum one group's deltas per block and append its records."""
        table = flat.reshape(-1, fields)
        n = len(table)
        end = self.at + n
        value = segmented_cumsum(table[:, 0], counts)
        self.method[self.at : end] = value & ~np.uint64(3)
        self.action[self.at : end] = value & np.uint64(3)
        rows = np.arange(first_block, first_block + len(counts), dtype=np.int64)
        self.block[self.at : end] = np.repeat(rows, counts)
        for k, col in enumerate(self.times, start=1):
            col[self.at : end] = segmented_cumsum(table[:, k], counts).view(np.int64)
        self.at = end

    def records(self, damaged: list[tuple[int, str]]) -> Records:
        n = self.at
        times = [t[:n] for t in self.times]
        return Records(self.block[:n], self.method[:n], self.action[:n], times, damaged)


def _decode_group(
    arr: U8,
    group: list[Block],
    fields: int,
    lead: int,
    kept: list[int],
    parts: list[U64],
    damaged: list[tuple[int, str]],
) -> None:
    """Decode one group of blocks at once; append the payload records kept per block and
    their LEBs as a flat (records x fields) run, field 0 sign-extended (two's complement)."""
    n = len(arr)
    spans = [(b.payload, min(b.end, n)) for b in group]
    buf = np.concatenate([arr[s:e] for s, e in spans])
    lengths = np.array([e - s for s, e in spans], dtype=np.int64)
    starts = np.zeros(len(group), dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    lebs = decode(buf)
    owner = np.searchsorted(starts, lebs.start, side="right") - 1
    want = np.array([max(b.count - lead, 0) * fields for b in group], dtype=np.int64)
    have = np.bincount(owner, minlength=len(group))
    last = starts + lengths - 1
    padded = np.append(buf, np.uint8(0))  # zero-length payloads index the pad byte
    ends_ok = (lengths == 0) | (padded[np.maximum(last, 0)] < 0x80)
    overlong = np.bincount(owner, weights=lebs.overlong, minlength=len(group)) > 0
    good = (have == want) & ends_ok & ~overlong
    good[1:] &= ends_ok[:-1]  # after an unterminated block the next one lost its first LEB
    good &= np.array([b.end <= n for b in group])
    if good.all():
        kept.extend((want // fields).tolist())
        parts.append(_rows(lebs, np.arange(len(lebs)), fields))
        return
    for i, b in enumerate(group):
        if good[i]:
            parts.append(_rows(lebs, np.flatnonzero(owner == i), fields))
            kept.append(int(want[i]) // fields)
            continue
        own = decode(arr[b.payload : min(b.end, n)])
        bad = np.flatnonzero(own.overlong)
        usable = int(bad[0]) if len(bad) else len(own)
        records = min(usable // fields, max(b.count - lead, 0))
        parts.append(_rows(own, np.arange(records * fields), fields))
        kept.append(records)
        damaged.append((b.offset, _damage_text(b, n, records + lead, int(want[i]), len(own))))


def _rows(lebs: Lebs, idx: npt.NDArray[np.intp], fields: int) -> U64:
    """The LEBs at `idx` (whole records) flattened, field 0 read as SLEB128."""
    mat = lebs.value[idx].reshape(-1, fields).copy()
    first = idx[::fields]
    mat[:, 0] = sign_extend(lebs.value[first], lebs.length[first], lebs.last[first]).view(np.uint64)
    return mat.reshape(-1)


def _damage_text(b: Block, n: int, kept: int, want: int, have: int) -> str:
    if b.end > n:
        return f"block truncated at end of file: kept {kept} of {b.count} records"
    return (
        f"block payload does not match its header ({have} LEBs for {want}): "
        f"kept {kept} of {b.count} records"
    )


def _assemble_alpha(
    blocks: list[Block],
    counts: I64,
    table: U64,
    layout: Layout,
    chain: bool,
    damaged: list[tuple[int, str]],
) -> Records:
    """Alpha: prepend each block's clear first record; times are u32 µs with Δs as int32."""
    nb = len(blocks)
    firsts = np.array([b.first for b in blocks], dtype=object).reshape(nb, 3)
    first_val = np.array([int(v) for v in firsts[:, 0]], dtype=np.uint64)
    sizes = counts + 1
    block_of = np.repeat(np.arange(nb, dtype=np.int64), sizes)
    head = np.zeros(nb, dtype=np.int64)
    np.cumsum(sizes[:-1], out=head[1:])
    is_head = np.zeros(int(sizes.sum()), dtype=bool)
    is_head[head] = True

    def column(first: U64, deltas: U64, accumulate: bool) -> U64:
        col = np.zeros(len(is_head), dtype=np.uint64)
        col[is_head] = first
        col[~is_head] = deltas
        if accumulate:
            return segmented_cumsum(col, sizes)
        return col + np.repeat(first, sizes) * (~is_head).astype(np.uint64)

    value = column(first_val, table[:, 0], chain) if nb else np.zeros(0, np.uint64)
    if layout.id_width == 4:
        value &= np.uint64(0xFFFFFFFF)
    times: list[I64] = []
    clocks = [2, 1] if layout.clocks == 2 else [2]  # payload: wall then cpu; header: cpu, wall
    for k, slot in enumerate(clocks, start=1):
        first = np.array([int(v or 0) for v in firsts[:, slot]], dtype=np.uint64)
        d = table[:, k].astype(np.uint64) & np.uint64(0xFFFFFFFF)
        d32 = d.astype(np.int64)
        signed32: U64 = np.where(d32 >= 1 << 31, d32 - (1 << 32), d32).view(np.uint64)
        col = column(first, signed32, True).view(np.int64) if nb else np.zeros(0, np.int64)
        times.append(_unwrap_blocks(col, blocks, head, sizes))
    return Records(
        block_of, value & ~np.uint64(3), (value & np.uint64(3)).astype(np.uint8), times, damaged
    )


def _unwrap_blocks(col: I64, blocks: list[Block], head: I64, sizes: I64) -> I64:
    """Alpha headers hold u32 µs, so a thread's block may restart below its previous block
    after 2^32 µs (71.6 min): lift it by whole 2^32 steps (inside a block the int32 deltas
    already carry on past the wrap)."""
    last: dict[int, int] = {}
    for b, lo, size in zip(blocks, head.tolist(), sizes.tolist(), strict=True):
        if size == 0:
            continue
        prev = last.get(b.tid)
        if prev is not None and int(col[lo]) + (1 << 31) < prev:
            steps = (prev - (1 << 31) - int(col[lo])) // (1 << 32) + 1
            col[lo : lo + size] += steps << 32
        last[b.tid] = int(col[lo + size - 1])
    return col


def _gamma(arr: U8, blocks: list[Block], layout: Layout) -> Records:
    """Gamma blocks, decoded by `gamma.py` (its records have a data-dependent length)."""
    block_of, method, action, times, damaged = decode_gamma(arr, blocks, layout)
    return Records(block_of, method, action, times, damaged)


def rejoin_continued(rec: Records, blocks: list[Block], declared: U64) -> int:
    """Re-base beta blocks whose deltas continue the previous block of their thread.

    ART 15/16 streaming splits one big per-thread flush into several blocks without resetting
    its previous values (`FlushEntriesFormatV2` keeps them across its `while` loop), so such a
    block starts with a small delta instead of an absolute `ArtMethod*` (and its header
    counts the records of the whole flush so far). A block whose first id is unknown but
    whose ids become known once added to the previous block's last values is re-based in
    place, and its cumulative count is not reported as damage; returns how many were.
    """
    if len(rec.method) == 0 or len(declared) == 0:
        return 0
    known = IdMap(declared)
    counts = np.bincount(rec.block, minlength=len(blocks))
    first = np.cumsum(counts) - counts
    nonempty = np.flatnonzero(counts)
    unknown_first = nonempty[known.lookup(rec.method[first[nonempty]]) < 0]
    if len(unknown_first) == 0:
        return 0
    previous: dict[int, int] = {}  # tid -> last nonempty block index before
    prev_of = np.full(len(blocks), -1, dtype=np.int64)
    for i in nonempty.tolist():
        prev_of[i] = previous.get(blocks[i].tid, -1)
        previous[blocks[i].tid] = i
    fixed = 0
    for i in unknown_first.tolist():
        p = int(prev_of[i])
        if p < 0:
            continue
        lo, hi, last = int(first[i]), int(first[i] + counts[i]), int(first[p] + counts[p] - 1)
        value = rec.method[lo:hi] | rec.action[lo:hi].astype(np.uint64)
        shifted = value + (rec.method[last] | np.uint64(rec.action[last]))
        before = np.count_nonzero(known.lookup(rec.method[lo:hi]) >= 0)
        after = np.count_nonzero(known.lookup(shifted & ~np.uint64(3)) >= 0)
        if after <= before:
            continue
        rec.method[lo:hi] = shifted & ~np.uint64(3)
        rec.action[lo:hi] = (shifted & np.uint64(3)).astype(np.uint8)
        for col in rec.times:
            col[lo:hi] += col[last]
        fixed += 1
        if blocks[i].count == blocks[p].count + int(counts[i]):
            rec.damaged[:] = [d for d in rec.damaged if d[0] != blocks[i].offset]
    return fixed
