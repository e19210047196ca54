"""Random access to a trace's bytes: an in-memory buffer, or an open file read in chunks.

The regular reader walks the data section through `records()` so a 140 MB file is decoded
through one reusable 2 MB buffer instead of being held in memory next to its columns.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any, BinaryIO, cast

import numpy as np
import numpy.typing as npt

CHUNK_BYTES = 2 << 20
FILL_RUN = 1 << 20  # 1 MiB of one byte value is no trace's data (a preallocated or sparse tail)
_SCAN = 1 << 20


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
        self, start: int = 0, floor: int = 32, until: int | None = None
    ) -> int | None:
        """Stop the source at the first run of >= 1 MiB of 0x00 or 0xFF from `start` (never
        before `floor`: a 32-byte data header ends in zero padding); return where it now ends
        (None when there is no such run). Reads the file once, 1 MiB at a time, and no
        further than `until` (then the size stands: a caller refusing large inputs need not
        read them)."""
        finder = FillRun(start)
        at = start
        end = self.size if until is None else min(self.size, until)
        while at < end:
            found = finder.feed(self.read(at, _SCAN))
            if found is not None:
                self.size = max(found, min(floor, self.size))
                return self.size
            at += _SCAN
        return None

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
