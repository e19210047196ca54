"""Sample records decoded all at once: times, threads, event counts and call chains as columns.

A `Sample` holds numbers (time 1, thread_id 2, event_count 4, event_type_id 5) and nested
messages: callchain entries 3 (vaddr_in_file 1, file_id 2, symbol_id 3, execution_type 4) and
an unwinding_result 6. The records of a 1 MB group are first matched against the layout
simpleperf writes (`template.py`, every sample at once); the others are walked here, one field
per step with a cursor per sample (steps: the deepest call chain, never the samples), then
every entry at once (its fields in simpleperf's order read directly, in any other order walked).
A sample the walk cannot take (a key over one byte, a field running past its record) is
decoded alone by the plain decoder (`plain.py`), or dropped with a diagnostic.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from traceview.model import Diagnostic
from traceview.readers.simpleperf import plain, template, wire

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]
U8 = npt.NDArray[np.uint8]
_ENTRY = 3 << 3 | wire.LEN
_LONG, _FEW = 1024, 8  # past this many steps, so few samples go on plainly (plain.py)


I32 = npt.NDArray[np.int32]
GROUP = 1 << 20  # bytes of records decoded together: bounds the per-entry work arrays


class Namer(Protocol):
    """Gives call-chain entries method rows (`names.Namer`)."""

    def __call__(self, vaddr: U64, file: I64, symbol: I64, execution: I64) -> I32: ...

    def loose(self, file: I64, symbol: I64) -> npt.NDArray[np.bool_]: ...


@dataclass
class Samples:
    """One row per sample, the method rows of its call chain in `row[first[i]:first[i+1]]`
    (innermost first, as written). `has_count[i]` says the record wrote an event count."""

    record: I64
    time: U64
    tid: I64
    count: U64
    has_count: npt.NDArray[np.bool_]
    event: I64
    first: I64
    row: I32

    def __len__(self) -> int:
        return len(self.record)


def decode(
    buf: bytes | memoryview, records: I64, start: I64, stop: I64, name: Namer
) -> tuple[Samples, list[Diagnostic]]:
    """The samples of the records `records` whose payloads are `buf[start:stop]`, their
    entries named by `name`, a group of records (`GROUP` bytes of the file) at a time."""
    view = memoryview(buf)
    parts = []
    refused = []
    group = (start - start[0]) // GROUP if len(start) else start
    edges = [0, *(np.flatnonzero(np.diff(group)) + 1).tolist(), len(start)]
    for lo, hi in itertools.pairwise(edges):
        if lo == hi:
            continue
        at = int(start[lo])
        raw = wire.padded(view[at : int(stop[hi - 1])])
        here, there = start[lo:hi] - at, stop[lo:hi] - at
        m = template.match(raw, here, there, name.loose)  # simpleperf's own layout, at once
        cols = (m.time, m.tid, m.count, m.has_count, m.event)
        rows = name(m.vaddr, m.file, m.symbol, np.zeros(len(m.file), dtype=np.int64))
        parts.append(Samples(records[lo:hi][m.ok], *cols, m.first, rows))
        rest = np.flatnonzero(~m.ok)  # any other layout: walked field by field
        top, bad = _top(raw, here[rest], there[rest])
        keep = np.flatnonzero(~bad)
        first, vaddr, file, symbol, execution = _entries(raw, top, keep)
        cols = (top.time[keep], top.tid[keep], top.count[keep], top.has[keep], top.event[keep])
        rows = name(vaddr, file, symbol, execution)
        parts.append(Samples(records[lo:hi][rest[keep]], *cols, first, rows))
        refused.append(lo + rest[bad])
    which = np.concatenate(refused) if refused else np.zeros(0, dtype=np.int64)
    got, broken = plain.decode(buf, records, start, stop, which)
    rows = name(got.vaddr, got.file, got.symbol, got.execution)
    cols = (got.time, got.tid, got.count, got.has_count, got.event)
    slow = Samples(got.record, *cols, got.first, rows)
    diags = []
    if broken:
        what = f"{len(broken)} sample records that do not decode were dropped"
        diags.append(Diagnostic("bad-sample", what, offset=broken[0], count=len(broken)))
    return _concat([*parts, slow]), diags


@dataclass
class _Top:
    time: U64
    tid: I64
    count: U64
    has: npt.NDArray[np.bool_]
    event: I64
    e_sample: I64  # per entry, in the order met: its sample, content offset and length
    e_start: I64
    e_len: I64
    e_ordinal: I64
    per: I64  # entries per sample


def _top(raw: U8, start: I64, stop: I64) -> tuple[_Top, npt.NDArray[np.bool_]]:
    """Walk every sample's top-level fields at once (one field of each per step)."""
    n = len(start)
    time, count = np.zeros(n, dtype=np.uint64), np.zeros(n, dtype=np.uint64)
    tid, event = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    has, bad = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    per = np.zeros(n, dtype=np.int64)
    cursor = start.copy()
    parts: list[tuple[I64, I64, I64, I64]] = []
    live = np.flatnonzero(cursor < stop)
    steps = 0
    while len(live):
        steps += 1
        if steps > _LONG and len(live) <= _FEW:  # a few very long chains: one at a time
            bad[live] = True
            break
        c = cursor[live]
        key = raw[c]
        entry = key == _ENTRY
        # the common step: a call-chain entry of under 128 bytes (one length byte)
        ea, ec = live[entry], c[entry]
        size = raw[ec + 1].astype(np.int64)
        long = size >= 0x80
        bad[ea[long]] = True
        parts.append((ea, ec + 2, size, per[ea].copy()))
        per[ea] += 1
        cursor[ea] = ec + 2 + size
        other = ~entry
        if other.any():
            _field(
                raw,
                live[other],
                c[other],
                key[other],
                stop,
                cursor,
                bad,
                (time, tid, count, has, event),
            )
        live = live[(cursor[live] < stop[live]) & ~bad[live]]
    bad |= cursor != stop
    cat = [
        np.concatenate([p[i] for p in parts]) if parts else np.zeros(0, np.int64) for i in range(4)
    ]
    return _Top(time, tid, count, has, event, cat[0], cat[1], cat[2], cat[3], per), bad


def _field(
    raw: U8,
    who: I64,
    at: I64,
    key: U8,
    stop: I64,
    cursor: I64,
    bad: npt.NDArray[np.bool_],
    cols: tuple[U64, I64, U64, npt.NDArray[np.bool_], I64],
) -> None:
    """One field other than an entry, for the samples `who` whose cursors are at `at`."""
    time, tid, count, has, event = cols
    wt, number = key & 7, key >> 3
    value, size = wire.varints(raw, at + 1, stop[who])
    is_num, is_len = wt == wire.VARINT, wt == wire.LEN
    ok = (key < 0x80) & (number > 0) & (size > 0) & (is_num | is_len)
    after = at + 1 + size
    span = np.where(is_len, np.minimum(value, np.uint64(1 << 40)).astype(np.int64), 0)
    ok &= ~(is_len & (number == 3))  # an entry of 128 bytes or more
    ok &= ~(is_num & ((number == 3) | (number == 6)))
    ok &= ~(is_len & (number >= 1) & (number <= 5) & (number != 3))
    bad[who[~ok]] = True
    cursor[who] = after + span
    numbers = wt == wire.VARINT
    for field, col in ((1, time), (2, tid), (4, count), (5, event)):
        sel = np.flatnonzero(ok & numbers & (number == field))
        col[who[sel]] = value[sel] if col.dtype == np.uint64 else _i32(value[sel])
        if field == 4:
            has[who[sel]] = True


def _entries(raw: U8, top: _Top, keep: I64) -> tuple[I64, U64, I64, I64, I64]:
    """(first, vaddr, file, symbol, execution) of the entries of the samples `keep`."""
    per = top.per[keep]
    first = np.concatenate([[0], np.cumsum(per)]).astype(np.int64)
    base = np.full(len(top.per), -1, dtype=np.int64)
    base[keep] = first[:-1]
    mine = base[top.e_sample] >= 0
    dest = base[top.e_sample[mine]] + top.e_ordinal[mine]
    at = np.empty(int(first[-1]), dtype=np.int64)
    size = np.empty_like(at)
    at[dest], size[dest] = top.e_start[mine], top.e_len[mine]
    vaddr, file, symbol, execution = _entry_fields(raw, at, at + size)
    return first, vaddr, file, symbol, execution


def _entry_fields(raw: U8, at: I64, end: I64) -> tuple[U64, I64, I64, I64]:
    """Every entry's fields: the layout 1, 2, 3 (then 4) read directly, others walked."""
    n = len(at)
    out = [np.zeros(n, dtype=np.uint64) for _ in range(4)]
    pos = at.copy()
    fits = np.ones(n, dtype=bool)
    for field in (1, 2, 3):
        fits &= (pos < end) & (raw[pos] == field << 3)
        value, size = wire.varints(raw, pos + 1, end, 64 if field == 1 else 32)
        fits &= size > 0
        out[field - 1] = np.where(fits, value, 0)
        pos = pos + 1 + size
    tail = np.flatnonzero(fits & (pos < end))
    value, size = wire.varints(raw, pos[tail] + 1, end[tail])
    ok4 = (raw[pos[tail]] == 4 << 3) & (pos[tail] + 1 + size == end[tail]) & (size > 0)
    out[3][tail[ok4]] = value[ok4]
    fits[tail[~ok4]] = False
    other = np.flatnonzero(~fits)
    if len(other):
        got = _walk_entries(raw, at[other], end[other])
        for k in range(4):
            out[k][other] = got[k]
    return out[0], _i32(out[1]), _i32(out[2]), _i32(out[3])


def _walk_entries(raw: U8, at: I64, end: I64) -> list[U64]:
    """Entries in any field order (unknown fields skipped), walked field by field."""
    out = [np.zeros(len(at), dtype=np.uint64) for _ in range(4)]
    cursor = at.copy()
    live = np.flatnonzero(cursor < end)
    while len(live):
        c = cursor[live]
        key = raw[c]
        value, size = wire.varints(raw, c + 1, end[live])
        wt, number = key & 7, key >> 3
        ok = (key < 0x80) & (size > 0) & np.isin(wt, (wire.VARINT, wire.LEN))
        span = np.where(wt == wire.LEN, np.minimum(value, np.uint64(1 << 40)).astype(np.int64), 0)
        for field in (1, 2, 3, 4):
            sel = np.flatnonzero(ok & (wt == wire.VARINT) & (number == field))
            out[field - 1][live[sel]] = value[sel]
        cursor[live] = np.where(ok, c + 1 + size + span, end[live])
        live = live[cursor[live] < end[live]]
    return out


def _i32(values: U64) -> I64:
    """Varints of proto int32/uint32 fields as int64 (negatives were sign-extended)."""
    return (values & np.uint64(0xFFFF_FFFF)).astype(np.uint32).view(np.int32).astype(np.int64)


def _concat(parts: list[Samples]) -> Samples:
    firsts = []
    base = 0
    for p in parts:
        firsts.append(p.first[:-1] + base)
        base += int(p.first[-1])
    first = np.concatenate([*firsts, np.array([base], dtype=np.int64)])
    cols = {
        name: np.concatenate([getattr(p, name) for p in parts])
        for name in ("record", "time", "tid", "count", "has_count", "event", "row")
    }
    return Samples(first=first, **cols)
