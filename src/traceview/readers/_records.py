"""Vectorised decoding of V1 method records (9/10/14+ bytes) into preallocated event columns.

Shared by the regular, split, data-only and streaming readers: they hand `RecordDecoder.feed`
structured numpy views of consecutive records (a chunk of the file, or the run between two
streaming packets). Per chunk it maps thread and method ids to rows through lookup tables,
unwraps each thread's u32 µs clocks (a drop of more than 2^31 is a wrap) and clamps smaller
drops, carrying each thread's last value into the next chunk. No Python loop per record.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from traceview.model import Diagnostic

I64 = npt.NDArray[np.int64]
WRAP = 1 << 32
HALF = 1 << 31
_FILL = 0xEEEEEEEE  # Dalvik's buffer fill pattern: a record that was never written
_LUT_MAX = 1 << 22
_EMPTY = np.empty(
    0, dtype=np.int64
)  # method-id lookup tables up to 16 MiB; sparse ids use searchsorted


@dataclass(frozen=True)
class Layout:
    """Where the fields sit in one record: `clocks` names the u4 times in file order."""

    version: int
    record_size: int
    clocks: tuple[str, ...]
    wide_ids: bool = False  # the 2015 ART anomaly: u8 method values (record size 18)

    def dtype(self) -> np.dtype[np.void]:
        """The structured dtype of one record (extra trailing bytes are skipped)."""
        tid = "u1" if self.version == 1 else "<u2"
        at = 1 if self.version == 1 else 2
        names, formats, offsets = ["tid", "mid"], [tid, "<u8" if self.wide_ids else "<u4"], [0, at]
        at += 8 if self.wide_ids else 4
        for i, _ in enumerate(self.clocks):
            names.append(f"t{i}")
            formats.append("<u4")
            offsets.append(at + 4 * i)
        spec = {"names": names, "formats": formats, "offsets": offsets}
        return np.dtype({**spec, "itemsize": self.record_size})  # type: ignore[call-overload, no-any-return]


class RecordDecoder:
    """Decodes record chunks into event columns sized for `capacity` records."""

    def __init__(
        self,
        layout: Layout,
        capacity: int,
        thread_ids: list[int],
        method_ids: list[int],
        *,
        dalvik_fill: bool = False,
    ) -> None:
        self.layout = layout
        self.pos = 0
        self.stopped_at: int | None = None  # record index of a Dalvik fill-pattern record
        self.dalvik_fill = dalvik_fill
        self.thread = np.empty(capacity, dtype=np.uint16)
        self.method = np.empty(capacity, dtype=np.int32)
        self.action = np.empty(capacity, dtype=np.uint8)
        self.times = {c: np.empty(capacity, dtype=np.int64) for c in layout.clocks}
        # threads: a 65536-entry table tid -> row; key tids > 0xFFFF also answer to tid & 0xFFFF
        self.thread_ids = list(thread_ids)
        self.tlut = np.full(1 << 16, -1, dtype=np.int32)
        small = [(r, t) for r, t in enumerate(thread_ids) if 0 <= t <= 0xFFFF]
        for r, t in small:
            self.tlut[t] = r
        self.truncated_tids = 0
        for r, t in enumerate(thread_ids):
            if t > 0xFFFF and self.tlut[t & 0xFFFF] < 0:
                self.tlut[t & 0xFFFF] = r
                self.truncated_tids += 1
        self.new_threads: list[int] = []
        # methods: a dense table over id>>2 when the ids are compact, else sorted ids
        self.method_ids = list(method_ids)
        self.new_methods: list[int] = []
        keys = np.array([m >> 2 for m in method_ids], dtype=np.uint64)
        self.mlo = int(keys.min()) if len(keys) else 0
        span = int(keys.max()) - self.mlo + 1 if len(keys) else 1
        self.mlut: npt.NDArray[np.int32] | None = None
        if span <= max(1 << 12, min(_LUT_MAX, 64 * len(keys))):
            self.mlut = np.full(span, -1, dtype=np.int32)
            self.mlut[(keys - np.uint64(self.mlo)).astype(np.int64)] = np.arange(len(keys))
        self.sorted_ids = np.empty(0, dtype=np.uint64)
        self.sorted_rows = np.empty(0, dtype=np.int64)
        if self.mlut is None:
            self._add_sorted(keys, np.arange(len(keys)))
        # per-thread-row carries for each clock: last unwrapped µs (-1 unseen), running max, first
        self.last: dict[str, I64] = {}
        self.cmax: dict[str, I64] = {}
        self.first: dict[str, I64] = {}
        self._grow_carries(max(16, len(self.thread_ids)))
        self.wraps = 0
        self.backwards = 0
        self.bad_actions = 0
        self._deltas: list[I64] = []
        self._ndeltas = 0

    def _add_sorted(self, ids: npt.NDArray[np.uint64], rows: npt.NDArray[np.int64]) -> None:
        all_ids = np.concatenate([self.sorted_ids, ids])
        all_rows = np.concatenate([self.sorted_rows, rows])
        order = np.argsort(all_ids, kind="stable")
        self.sorted_ids, self.sorted_rows = all_ids[order], all_rows[order]

    def feed(self, rec: np.ndarray) -> None:
        """Decode the structured record array `rec` into the next rows of the columns."""
        if self.stopped_at is not None or not len(rec):
            return
        mval = rec["mid"]
        if self.dalvik_fill and not self.layout.wide_ids:
            fill = np.flatnonzero(mval == _FILL)
            if len(fill):
                self.stopped_at = self.pos + int(fill[0])
                rec, mval = rec[: fill[0]], mval[: fill[0]]
                if not len(rec):
                    return
        n = len(rec)
        s, e = self.pos, self.pos + n
        self.pos = e
        tid = np.ascontiguousarray(rec["tid"]).astype(np.uint16, copy=False)
        self._threads(tid, s, e)
        act = (mval & 3).astype(np.uint8)
        bad = act == 3
        if bad.any():
            self.bad_actions += int(bad.sum())
            act[bad] = 1  # action 3 is unused: read as an exit, like dmtracedump
        self.action[s:e] = act
        self._methods(mval >> 2, s, e)
        # group the chunk by thread once (stable radix sort of u16), reuse for each clock
        if n and tid.min() == tid.max():
            order: I64 | None = None
            st = tid
            starts = np.zeros(1, dtype=np.int64)
        else:
            order = np.argsort(tid, kind="stable")
            st = tid[order]
            starts = np.flatnonzero(np.concatenate(([True], st[1:] != st[:-1])))
        gtid = self.tlut[st[starts]].astype(np.int64)  # thread row of each group
        if len(self.thread_ids) > len(self.cmax[self.layout.clocks[0]]):
            self._grow_carries(2 * len(self.thread_ids))
        for i, clock in enumerate(self.layout.clocks):
            raw = rec[f"t{i}"]
            r = (raw[order] if order is not None else raw).astype(np.int64)
            val = self._unwrap(r, starts, gtid, clock, sample=i == len(self.layout.clocks) - 1)
            np.multiply(val, 1000, out=val)
            if order is None:
                self.times[clock][s:e] = val
            else:
                self.times[clock][s:e][order] = val

    def _grow_carries(self, size: int) -> None:
        for c in self.layout.clocks:
            old = len(self.last.get(c, ()))
            self.last[c] = np.concatenate([self.last.get(c, _EMPTY), np.full(size - old, -1)])
            self.cmax[c] = np.concatenate([self.cmax.get(c, _EMPTY), np.zeros(size - old, int)])
            self.first[c] = np.concatenate([self.first.get(c, _EMPTY), np.full(size - old, -1)])

    def _threads(self, tid: npt.NDArray[np.uint16], s: int, e: int) -> None:
        rows = self.tlut[tid]
        if (rows < 0).any():
            miss = tid[rows < 0]
            uniq, idx = np.unique(miss, return_index=True)
            for t in uniq[np.argsort(idx, kind="stable")].tolist():
                self.tlut[t] = len(self.thread_ids)
                self.thread_ids.append(t)
                self.new_threads.append(t)
            rows = self.tlut[tid]
        if len(self.thread_ids) > 0xFFFF and self.thread.dtype == np.uint16:
            self.thread = self.thread.astype(np.uint32)
        self.thread[s:e] = rows

    def _methods(self, keys: np.ndarray, s: int, e: int) -> None:
        keys = keys.astype(np.int64) if not self.layout.wide_ids else keys
        rows = self._lookup(keys)
        if (rows < 0).any():
            miss = keys[rows < 0]
            uniq, idx = np.unique(miss, return_index=True)
            new = uniq[np.argsort(idx, kind="stable")]
            start = len(self.method_ids)
            self.method_ids.extend(int(k) << 2 for k in new.tolist())
            self.new_methods.extend(int(k) << 2 for k in new.tolist())
            self._add_sorted(new.astype(np.uint64), np.arange(start, start + len(new)))
            rows = self._lookup(keys)
        self.method[s:e] = rows

    def _lookup(self, keys: np.ndarray) -> I64:
        rows = np.full(len(keys), -1, dtype=np.int64)
        if self.mlut is not None and len(keys):
            k = keys.astype(np.int64) - self.mlo
            lo, hi = int(k.min()), int(k.max())
            if lo >= 0 and hi < len(self.mlut):
                rows = self.mlut[k].astype(np.int64)
            else:
                inside = (k >= 0) & (k < len(self.mlut))
                rows[inside] = self.mlut[k[inside]]
        if len(self.sorted_ids) and (rows < 0).any():
            miss = np.flatnonzero(rows < 0)
            kk = keys[miss].astype(np.uint64)
            at = np.minimum(np.searchsorted(self.sorted_ids, kk), len(self.sorted_ids) - 1)
            hit = self.sorted_ids[at] == kk
            rows[miss[hit]] = self.sorted_rows[at[hit]]
        return rows

    def _unwrap(self, r: I64, starts: I64, gtid: I64, clock: str, *, sample: bool) -> I64:
        """Per-thread unwrapped, clamped µs for one clock of one chunk (r is in thread order)."""
        n = len(r)
        last, cmax, first = self.last[clock], self.cmax[clock], self.first[clock]
        d = np.empty(n, dtype=np.int64)
        d[0] = 0
        np.subtract(r[1:], r[:-1], out=d[1:])
        prev = last[gtid]
        seen = prev >= 0
        r0 = r[starts]
        d0 = np.where(seen, r0 - (prev & (WRAP - 1)), 0)
        d[starts] = d0
        wrapped = d < -HALF
        if wrapped.any():
            self.wraps += int(wrapped.sum())
            d[wrapped] += WRAP
        back = bool((d < 0).any())
        base = np.where(seen, prev, r0)
        startval = base + np.where(seen, d[starts], 0)
        d[starts] = startval
        c = np.cumsum(d)
        lengths = np.diff(np.append(starts, n))
        offs = np.zeros(len(starts), dtype=np.int64)
        offs[1:] = c[starts[1:] - 1]
        val = c - np.repeat(offs, lengths)
        ends = starts + lengths - 1
        last[gtid] = val[ends]
        first[gtid[~seen]] = r0[~seen]
        if sample and self._ndeltas < 200_000:
            inner = np.ones(n, dtype=bool)
            inner[starts] = False
            self._deltas.append(d[inner][:200_000].copy())
            self._ndeltas += len(self._deltas[-1])
        carried = np.where(seen, cmax[gtid], 0)
        if back or bool((seen & (startval < carried)).any()):
            v = val.copy()
            v[starts] = np.maximum(v[starts], carried)
            gmin = np.minimum.reduceat(v, starts)
            gmax = np.maximum.reduceat(v, starts)
            goff = np.zeros(len(starts), dtype=np.int64)
            goff[1:] = np.cumsum(gmax - gmin + 1)[:-1]
            shift = np.repeat(goff - gmin, lengths)
            v += shift
            np.maximum.accumulate(v, out=v)
            v -= shift
            self.backwards += int(np.count_nonzero(v != val))
            val = v
        cmax[gtid] = val[ends]
        return val

    @property
    def sample_deltas(self) -> I64 | None:
        """Per-thread steps (µs) of the last clock over the first ~200k records, or None."""
        return np.concatenate(self._deltas) if self._deltas else None

    def spans(self, clock: str) -> int:
        """Σ over threads of (last − first) µs on `clock`: the wall-unit-bug test uses it."""
        seen = self.last[clock] >= 0
        return int((self.cmax[clock][seen] - self.first[clock][seen]).sum())

    def diagnostics(self) -> list[Diagnostic]:
        """What the decoding repaired or noticed."""
        out = []
        if self.wraps:
            out.append(
                Diagnostic(
                    "clock-wrap",
                    f"the 32-bit µs clock wrapped {self.wraps} time(s) within threads "
                    "(traces longer than 71.6 min); unwrapped",
                    count=self.wraps,
                )
            )
        if self.backwards:
            out.append(
                Diagnostic(
                    "time-backwards",
                    f"{self.backwards} record(s) have a time earlier than the previous record "
                    "of their thread; clamped to the previous time",
                    count=self.backwards,
                )
            )
        if self.bad_actions:
            out.append(
                Diagnostic(
                    "bad-action",
                    f"{self.bad_actions} record(s) have action 3 (unused); read as exits, "
                    "as dmtracedump does",
                    count=self.bad_actions,
                )
            )
        if self.truncated_tids:
            out.append(
                Diagnostic(
                    "truncated-thread-id",
                    f"{self.truncated_tids} thread id(s) of the key exceed 16 bits; records "
                    "with the low 16 bits of such an id are attributed to it",
                    count=self.truncated_tids,
                )
            )
        return out
