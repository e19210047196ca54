"""Random access to a trace's bytes: an in-memory buffer, or an open file read in chunks.

The regular reader walks the data section through `records()` so a 140 MB file is decoded
through one reusable 2 MB buffer instead of being held in memory next to its columns.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Iterator
from typing import Any, BinaryIO, cast

import numpy as np
import numpy.typing as npt

CHUNK_BYTES = 2 << 20
FILL_RUN = 1 << 20  # 1 MiB of one byte value is no trace's data (a preallocated or sparse tail)
_SCAN = 1 << 20
_WINDOW = 8 << 20  # bytes mapped at once to sample a file (its pages become resident)


class FillRun:
    """Finds the first run of >= `FILL_RUN` bytes of 0x00 (or of 0xFF, erased-flash padding)
    in bytes fed chunk by chunk: no trace holds a megabyte of one byte value.

    Works on 8-byte words (aligned to the first byte fed), so the offset it reports may be up
    to 7 bytes past where the run really begins: it never cuts a byte of another value.
    """

    FILLS = (0, 0xFFFF_FFFF_FFFF_FFFF)

    def __init__(self, start: int = 0, limit: int = FILL_RUN) -> None:
        self.pos = start  # offset of the next byte fed
        self.run_start = [start, start]  # per fill: where its run at the end of the input began
        self.limit = limit
        self.found: int | None = None

    def feed(self, chunk: bytes | memoryview) -> int | None:
        """Feed the next bytes; the offset of the first long run once there is one."""
        if self.found is not None:
            return self.found
        view = memoryview(chunk).cast("B")
        n = len(view)
        whole = n // 8 * 8
        words = np.frombuffer(view[:whole], dtype=np.uint64)
        tail = bytes(view[whole:])
        hits = []
        for k, fill in enumerate(self.FILLS):
            found = self._run(words if fill == 0 else ~words, k, whole)
            if found is not None:
                hits.append(found)
                continue
            if tail.strip(bytes([fill & 0xFF])):
                self.run_start[k] = self.pos + n
            if self.pos + n - self.run_start[k] >= self.limit:
                hits.append(self.run_start[k])
        self.pos += n
        if hits:
            self.found = min(hits)
        return self.found

    def _run(self, other: npt.NDArray[np.uint64], k: int, whole: int) -> int | None:
        """`other` is non-zero where a word is not the fill: the run ending or found here."""
        if len(other) and other.all():  # the common case: no such word, no index array
            self.run_start[k] = self.pos + whole
            return None
        nz = np.flatnonzero(other)
        if not len(nz):
            return None
        if self.pos + int(nz[0]) * 8 - self.run_start[k] >= self.limit:
            return self.run_start[k]
        gaps = np.flatnonzero(np.diff(nz) - 1 >= self.limit // 8)
        if len(gaps):
            return self.pos + (int(nz[gaps[0]]) + 1) * 8
        self.run_start[k] = self.pos + (int(nz[-1]) + 1) * 8
        return None


def _words_at(raw: npt.NDArray[np.uint8], offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.uint64]:
    """The 8 bytes at each offset of `raw`, as native uint64 words (a copy)."""
    gathered = raw[offsets[:, None] + np.arange(8)]
    return np.ascontiguousarray(gathered).view(np.uint64).ravel()


class Source:
    """The bytes of one trace file (`data` in memory, or `file` read on demand)."""

    def __init__(self, data: bytes | memoryview | None = None, file: BinaryIO | None = None):
        self.raw = data if isinstance(data, bytes) else None  # kept to hand out uncopied
        self.data = memoryview(data).cast("B") if data is not None else None
        self.file = file
        if self.data is not None:
            self.size = len(self.data)
        elif file is not None:
            self.size = os.fstat(file.fileno()).st_size
        else:
            raise ValueError("Source needs data or a file")

    def clip_fill_run(
        self, start: int = 0, floor: int = 32, until: int | None = None, limit: int = FILL_RUN
    ) -> int | None:
        """Stop the source at the first run of >= `limit` bytes of 0x00 or 0xFF from `start`
        (never before `floor`: a 32-byte data header ends in zero padding); return where it
        now ends (None when there is no such run). Looks no further than `until` (then the
        size stands: a caller refusing large inputs need not read them).

        A run that long covers at least `limit // stride - 1` consecutive words sampled every
        `stride` bytes, so only the regions around such sample runs are scanned exactly
        (`FillRun`); a trace without one costs a strided look, not a second read of the file.
        """
        end = self.size if until is None else min(self.size, until)
        for lo, hi in self._fill_candidates(start, end, limit):
            finder = FillRun(lo, limit)
            at = lo
            while at < hi:
                found = finder.feed(self.read(at, min(_SCAN, hi - at)))
                if found is not None:
                    self.size = max(found, min(floor, self.size))
                    return self.size
                at += _SCAN
        return None

    def _fill_candidates(self, start: int, end: int, limit: int) -> list[tuple[int, int]]:
        """Regions `[lo, hi)` (lo on `start`'s word grid) that may hold a fill run."""
        stride = max(8, limit // 16 // 8 * 8)  # (a 1 MiB run covers 15 samples in a row)
        need = max(1, limit // stride - 1)
        if end - start < limit:
            return []
        words = self._sample_words(start, end, stride)
        fill = (words == 0) | (words == np.uint64(0xFFFF_FFFF_FFFF_FFFF))
        edges = np.flatnonzero(np.diff(np.concatenate(([0], fill.view(np.int8), [0]))))
        out = []
        for first, stop in zip(edges[0::2].tolist(), edges[1::2].tolist(), strict=True):
            if stop - first >= need:  # samples first..stop-1 are all fill
                lo = start + max(first - 1, 0) * stride
                out.append((lo, min(end, start + stop * stride + 8)))
        return out

    def _sample_words(self, start: int, end: int, stride: int) -> npt.NDArray[np.uint64]:
        """The 8-byte words at `start`, `start + stride`, ... (each whole before `end`)."""
        count = (end - start - 8) // stride + 1
        offsets = np.arange(count, dtype=np.int64) * stride
        if self.data is not None:
            raw = np.frombuffer(self.data, dtype=np.uint8, count=end - start, offset=start)
            return _words_at(raw, offsets)
        assert self.file is not None
        parts = []  # mapped a window at a time: the address space stays small (RLIMIT_AS)
        first = start + offsets
        for w in range(start - start % _WINDOW, end, _WINDOW):
            sel = first[(first >= w) & (first < w + _WINDOW)]
            if not len(sel):
                continue
            size = min(_WINDOW + 8, end - w)
            with mmap.mmap(self.file.fileno(), size, access=mmap.ACCESS_READ, offset=w) as mm:
                raw = np.frombuffer(mm, dtype=np.uint8, count=size)
                parts.append(_words_at(raw, sel - w))
                del raw  # the map closes only once no array views it
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)

    def whole(self) -> bytes:
        """All the bytes (up to `size`), uncopied when the source was built from bytes."""
        if self.raw is not None and self.size == len(self.raw):
            return self.raw
        return self.read(0, self.size)

    def read(self, offset: int, n: int) -> bytes:
        """Up to `n` bytes from `offset` (fewer at the end of the file)."""
        offset = max(0, min(offset, self.size))
        n = max(0, min(n, self.size - offset))
        if self.data is not None:
            return bytes(self.data[offset : offset + n])
        assert self.file is not None
        self.file.seek(offset)
        return self.file.read(n)

    def records(self, offset: int, count: int, dtype: np.dtype[np.void]) -> Iterator[np.ndarray]:
        """`count` records of `dtype` from `offset`, as structured arrays of ~CHUNK_BYTES at most.

        For a file source the arrays share one buffer: use each before asking for the next.
        """
        size = dtype.itemsize
        if count <= 0:
            return
        per = max(1, CHUNK_BYTES // size)
        if self.data is not None:
            whole = np.frombuffer(self.data, dtype=dtype, count=count, offset=offset)
            for at in range(0, count, per):
                yield whole[at : at + per]
            return
        assert self.file is not None
        buf = bytearray(min(per, max(count, 1)) * size)
        view = memoryview(buf)
        self.file.seek(offset)
        done = 0
        while done < count:
            k = min(per, count - done)
            got = 0
            while got < k * size:
                m = cast(Any, self.file).readinto(view[got : k * size])
                if not m:
                    break
                got += m
            k = got // size
            if k == 0:
                return
            yield np.frombuffer(buf, dtype=dtype, count=k)
            done += k
