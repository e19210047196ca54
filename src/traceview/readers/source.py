"""Random access to a trace's bytes: an in-memory buffer, or an open file read in chunks.

The regular reader walks the data section through `records()` so a 140 MB file is decoded
through one reusable 2 MB buffer instead of being held in memory next to its columns.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any, BinaryIO, cast

import numpy as np

CHUNK_BYTES = 2 << 20
ZERO_RUN = 1 << 20  # 1 MiB of zero bytes is no trace's data (a preallocated or sparse tail)
_SCAN = 1 << 20


class ZeroRun:
    """Finds the first run of >= `ZERO_RUN` zero bytes in bytes fed chunk by chunk.

    Works on 8-byte words (aligned to the first byte fed), so the offset it reports may be up
    to 7 bytes past where the zeros really begin: it never cuts a non-zero byte.
    """

    def __init__(self, start: int = 0, limit: int = ZERO_RUN) -> None:
        self.pos = start  # offset of the next byte fed
        self.run_start = start  # where the zeros at the end of what was fed begin
        self.limit = limit
        self.found: int | None = None

    def feed(self, chunk: bytes | memoryview) -> int | None:
        """Feed the next bytes; the offset of the first long zero run once there is one."""
        if self.found is not None:
            return self.found
        view = memoryview(chunk).cast("B")
        n = len(view)
        whole = n // 8 * 8
        words = np.frombuffer(view[:whole], dtype=np.uint64)
        tail = view[whole:]
        if len(words) and words.all():  # the common case: no zero word at all, no index array
            self.run_start = self.pos + whole
            nz = words[:0]
        else:
            nz = np.flatnonzero(words)
        if len(nz):
            first_nz = self.pos + int(nz[0]) * 8
            if first_nz - self.run_start >= self.limit:
                self.found = self.run_start
                return self.found
            gaps = np.flatnonzero(np.diff(nz) - 1 >= self.limit // 8)
            if len(gaps):
                self.found = self.pos + (int(nz[gaps[0]]) + 1) * 8
                return self.found
            self.run_start = self.pos + (int(nz[-1]) + 1) * 8
        if any(tail):
            self.run_start = self.pos + n
        self.pos += n
        if self.pos - self.run_start >= self.limit:
            self.found = self.run_start
        return self.found


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

    def clip_zero_run(self, start: int = 0, floor: int = 32) -> int | None:
        """Stop the source at the first run of >= 1 MiB of zero bytes from `start` (never
        before `floor`: a 32-byte data header ends in zero padding); return where it now ends
        (None when there is no such run). Reads the file once, 1 MiB at a time."""
        finder = ZeroRun(start)
        at = start
        while at < self.size:
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
