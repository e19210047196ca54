"""Vectorised decoding of V1 method records (9/10/14+ bytes) into preallocated event columns.

Shared by the regular, split, data-only and streaming readers: they hand `RecordDecoder.feed`
structured numpy views of consecutive records (a chunk of the file, or the runs between
streaming packets). Per chunk it maps thread and method ids to rows through lookup tables,
groups the chunk by thread row with one stable radix sort, and lets `ThreadClock` unwrap and
clamp each clock, carrying every thread's state into the next chunk. No loop per record.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from traceview.model import EventTable, method_dtype, thread_index_dtype
from traceview.readers.source import CHUNK_BYTES
from traceview.readers.summary import guess_sampling
from traceview.readers.v1.clocks import ThreadClock

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
Sink = Callable[[int, EventTable], bool]  # (first record's index, its chunk) -> go on
Columns = tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]
_FILL = 0xEEEEEEEE  # Dalvik's buffer fill pattern: a record that was never written
_LUT_MAX = 1 << 22  # dense method-id tables up to 16 MiB; sparse ids use searchsorted
_THOUSAND = np.int64(1000)
_NATIVE = np.dtype("<u4").isnative  # the compiled pass reads little-endian fields in place


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
    """Decodes record chunks into event columns sized for `capacity` records.

    `clocks`, when given, names the time columns wanted (none when empty): the others are not
    kept when the layout has one of these (a dropped clock's state is carried only through
    the first records, which feed the statistical checks, and for the CPU clock when the wall
    clock is kept: the wall-unit check compares their spans).

    `sink`, when given, receives each chunk as it is decoded (the index of its first record
    and its columns) and nothing is kept: two sets of columns one chunk long take turns, so a
    chunk's stay valid until the next but one (a sink may work on one chunk while the next is
    decoded). It returns False to stop the decoding (`halted`)."""

    def __init__(
        self,
        layout: Layout,
        capacity: int,
        thread_ids: list[int],
        method_ids: list[int],
        *,
        dalvik_fill: bool = False,
        clocks: Collection[str] | None = None,
        sink: Sink | None = None,
    ) -> None:
        self.layout = layout
        self.sink = sink
        self.halted = False
        if sink is not None:
            capacity = min(capacity, max(1, CHUNK_BYTES // layout.record_size))
        self.pos = 0  # records decoded
        self.row = 0  # the columns' next row (records not yet handed to the sink)
        self.stopped_at: int | None = None  # record index of a Dalvik fill-pattern record
        self.dalvik_fill = dalvik_fill and not layout.wide_ids
        # thread rows: a byte a record while the rows fit (wider when records add threads)
        self.thread = np.empty(capacity, dtype=thread_index_dtype(len(thread_ids)))
        # method rows: two bytes a record while the rows fit (a key of < 32,768 methods)
        self.method = np.empty(capacity, dtype=method_dtype(len(method_ids)))
        self.action = np.empty(capacity, dtype=np.uint8)
        kept = [c for c in layout.clocks if clocks is None or c in clocks]
        if not kept and clocks:  # none of the clocks asked for: every one
            kept = list(layout.clocks)
        self.times = {c: np.empty(capacity, dtype=np.int64) for c in kept}
        # the clocks decoded past the first records: the kept ones, and the CPU clock for the
        # wall-unit check when the wall clock is kept
        self.carried = [c for c in layout.clocks if c in kept or (c == "cpu" and "wall" in kept)]
        last = len(layout.clocks) - 1
        rows = max(16, len(thread_ids))
        # the statistical sample of steps, from the last clock: not when no time is kept
        sample = [i == last and bool(kept) for i in range(last + 1)]
        self.clocks = {c: ThreadClock(rows, sample=sample[i]) for i, c in enumerate(layout.clocks)}
        self.bad_actions = 0
        self._sampling: tuple[bool, float | None] | None = None
        self._spare: Columns | None = None  # (a sink's) the other set of columns
        # threads: tid -> row table; key tids > 0xFFFF also answer to their low 16 bits
        self.thread_ids = list(thread_ids)
        self.new_threads: list[int] = []
        self.tlut = np.full(1 << 16, -1, dtype=np.int32)
        for r, t in enumerate(thread_ids):
            if 0 <= t <= 0xFFFF:
                self.tlut[t] = r
        self.truncated_tids = 0
        for r, t in enumerate(thread_ids):
            if t > 0xFFFF and self.tlut[t & 0xFFFF] < 0:
                self.tlut[t & 0xFFFF] = r
                self.truncated_tids += 1
        # methods: a dense table over id>>2 when the ids are compact, else sorted keys
        self.method_ids = list(method_ids)
        self.new_methods: list[int] = []
        keys = np.array([m >> 2 for m in method_ids], dtype=np.uint64)
        self.mlo = int(keys.min()) if len(keys) else 0
        span = int(keys.max()) - self.mlo + 1 if len(keys) else 1
        self.mlut: I32 | None = None
        self.sorted_keys = np.empty(0, dtype=np.uint64)
        self.sorted_rows = np.empty(0, dtype=np.int32)
        if span <= max(1 << 12, min(_LUT_MAX, 64 * len(keys))):
            self.mlut = np.full(span, -1, dtype=np.int32)
            self.mlut[(keys - np.uint64(self.mlo)).astype(np.int64)] = np.arange(len(keys))
        else:
            self._add_sorted(keys, np.arange(len(keys), dtype=np.int32))

    def feed(self, rec: np.ndarray) -> None:
        """Decode the structured record array `rec` into the next rows of the columns."""
        if self.stopped_at is not None or self.halted or not len(rec):
            return
        if self.dalvik_fill:
            fill = np.flatnonzero(rec["mid"] == _FILL)
            if len(fill):
                self.stopped_at = self.pos + int(fill[0])
                rec = rec[: fill[0]]
                if not len(rec):
                    return
        if not self._compiled(rec):
            self._decode(rec)
        if self.sink is not None:
            n, self.row = self.row, 0
            times = {c: col[:n] for c, col in self.times.items()}
            cpu, wall = times.get("cpu"), times.get("wall")
            chunk = EventTable(self.thread[:n], self.method[:n], self.action[:n], cpu, wall)
            self._swap()
            self.halted = not self.sink(self.pos - n, chunk)

    def _swap(self) -> None:
        """Decode the next chunk into the other set of columns (made alike when the rows
        outgrew its dtypes)."""
        spare = self._spare
        if spare is None or (spare[0].dtype, spare[1].dtype) != (
            self.thread.dtype,
            self.method.dtype,
        ):
            like = np.empty_like
            times = {c: like(col) for c, col in self.times.items()}
            spare = (like(self.thread), like(self.method), like(self.action), times)
        self._spare = (self.thread, self.method, self.action, self.times)
        self.thread, self.method, self.action, self.times = spare

    def _decode(self, rec: np.ndarray) -> None:
        """The numpy decoding of `rec` (see the module docstring)."""
        mval = np.ascontiguousarray(rec["mid"])
        n = len(rec)
        s, e = self.row, self.row + n
        self.pos += n
        self.row = e
        rows = self._threads(np.ascontiguousarray(rec["tid"]), s, e)
        act = self.action[s:e]
        np.bitwise_and(mval, 3, out=act, casting="unsafe")
        if int(act.max()) == 3:
            bad = act == 3
            self.bad_actions += int(np.count_nonzero(bad))
            act[bad] = 1  # action 3 is unused: read as an exit, like dmtracedump
        self._methods(mval >> 2, s, e)
        # group the chunk by thread row once (stable radix sort), shared by both clocks
        order: I64 | None = None
        if int(rows.min()) == int(rows.max()):
            starts = np.zeros(1, dtype=np.int64)
            group_rows = rows[:1].astype(np.int64)
        else:
            order = np.argsort(rows, kind="stable")
            sorted_rows = rows[order]
            starts = np.flatnonzero(sorted_rows[1:] != sorted_rows[:-1]) + 1
            starts = np.concatenate([np.zeros(1, dtype=np.int64), starts])
            group_rows = sorted_rows[starts].astype(np.int64)
        for i, name in enumerate(self.layout.clocks):
            clock = self.clocks[name]
            clock.grow(len(self.thread_ids))
            raw = np.ascontiguousarray(rec[f"t{i}"])
            val = clock.apply(raw[order] if order is not None else raw, starts, group_rows)
            if name not in self.times:
                continue
            out = self.times[name][s:e]
            if val is None:
                np.multiply(raw, _THOUSAND, out=out)
            else:
                val *= 1000
                if order is None:
                    out[:] = val
                else:
                    out[order] = val

    def _compiled(self, rec: np.ndarray) -> bool:
        """Decode `rec` with the compiled passes (readers/v1/compiled.py) when they can: every
        clock's statistical sample is complete, the ids are 4-byte and every id is known
        (else the numpy path decodes the chunk, adding rows for new ids). True when done."""
        if self.layout.wide_ids or not _NATIVE or any(c.wanting for c in self.clocks.values()):
            return False
        from traceview.readers.v1.compiled import decode_chunk

        self.sampling()  # now, while the columns are still mostly untouched (its temporaries)
        return decode_chunk(self, rec)

    def sampling(self) -> tuple[bool, float | None]:
        """(sampled, interval µs) guessed from the last clock's steps over the first records
        (`summary.guess_sampling`), guessed once."""
        if self._sampling is None:
            deltas = self.clocks[self.layout.clocks[-1]].sample_deltas()
            self._sampling = guess_sampling(deltas) if deltas is not None else (False, None)
        return self._sampling

    def _threads(self, tid: np.ndarray, s: int, e: int) -> np.ndarray:
        """Thread rows of `tid` (uint8 when < 256 rows: the sort is then one radix pass)."""
        rows = self.tlut[tid]
        if int(rows.min()) < 0:
            uniq, idx = np.unique(tid[rows < 0], return_index=True)
            for t in uniq[np.argsort(idx, kind="stable")].tolist():
                self.tlut[t] = len(self.thread_ids)
                self.thread_ids.append(int(t))
                self.new_threads.append(int(t))
            rows = self.tlut[tid]
        self.widen_threads()
        self.thread[s:e] = rows
        small = np.uint8 if len(self.thread_ids) <= 0x100 else np.uint16
        out: np.ndarray = rows.astype(small) if len(self.thread_ids) <= 0x10000 else rows
        return out

    def widen_threads(self) -> None:
        """Make the thread column wide enough for every thread row so far."""
        wider = thread_index_dtype(len(self.thread_ids))
        if wider.itemsize > self.thread.itemsize:
            self.thread = self.thread.astype(wider)

    def _methods(self, keys: np.ndarray, s: int, e: int) -> None:
        out = self.method[s:e]
        self._lookup(keys, out)
        if int(out.min()) < 0:
            uniq, idx = np.unique(keys[out < 0], return_index=True)
            new = uniq[np.argsort(idx, kind="stable")]
            start = len(self.method_ids)
            ids = [int(k) << 2 for k in new.tolist()]
            self.method_ids.extend(ids)
            self.new_methods.extend(ids)
            wider = method_dtype(len(self.method_ids))
            if wider != self.method.dtype:  # past 32,767 rows: four bytes a record
                self.method = self.method.astype(wider)
                out = self.method[s:e]
            self._add_sorted(new.astype(np.uint64), np.arange(start, start + len(new)))
            self._lookup(keys, out)

    def _lookup(self, keys: np.ndarray, out: I32) -> None:
        """Method rows of `keys` (id >> 2) into `out`; -1 where unknown."""
        done = False
        if self.mlut is not None:
            k = keys if self.mlo == 0 else keys.astype(np.int64) - self.mlo
            if int(k.min()) >= 0 and int(k.max()) < len(self.mlut):
                np.take(self.mlut, k, out=out)
                done = True
            else:
                out[:] = -1
                inside = (k >= 0) & (k < len(self.mlut))
                out[inside] = self.mlut[k[inside]]
        else:
            out[:] = -1
        if len(self.sorted_keys) and (not done or int(out.min()) < 0):
            miss = np.flatnonzero(out < 0)
            kk = keys[miss].astype(np.uint64)
            at = np.minimum(np.searchsorted(self.sorted_keys, kk), len(self.sorted_keys) - 1)
            hit = self.sorted_keys[at] == kk
            out[miss[hit]] = self.sorted_rows[at[hit]]

    def _add_sorted(self, keys: npt.NDArray[np.uint64], rows: npt.NDArray[np.integer]) -> None:
        all_keys = np.concatenate([self.sorted_keys, keys])
        all_rows = np.concatenate([self.sorted_rows, rows.astype(np.int32)])
        order = np.argsort(all_keys, kind="stable")
        self.sorted_keys, self.sorted_rows = all_keys[order], all_rows[order]
