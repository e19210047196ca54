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


class Source:
    """The bytes of one trace file (`data` in memory, or `file` read on demand)."""

    def __init__(self, data: bytes | memoryview | None = None, file: BinaryIO | None = None):
        self.data = memoryview(data).cast("B") if data is not None else None
        self.file = file
        if self.data is not None:
            self.size = len(self.data)
        elif file is not None:
            self.size = os.fstat(file.fileno()).st_size
        else:
            raise ValueError("Source needs data or a file")

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
