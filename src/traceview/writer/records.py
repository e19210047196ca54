"""V1 binary pieces: the 32-byte data header and the fixed-size records, built with numpy.

Records are assembled chunk by chunk in a structured array whose layout is the file's
(u1/u2 thread, u4 method|action, one or two u4 µs times, zero padding up to the record size),
so writing 10M records is a few array operations per chunk (format.md §1.2-1.3).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from traceview.model import Trace

MAGIC = 0x574F4C53  # "SLOW"
CHUNK = 1 << 20  # records per array handed to the file


def min_record_size(version: int) -> int:
    """9, 10 or 14 bytes for versions 1, 2, 3."""
    return {1: 9, 2: 10, 3: 14}[version]


def record_dtype(version: int, record_size: int) -> np.dtype[np.void]:
    """The structured dtype of one record, padded to `record_size` bytes."""
    tid = ("<u1", 1) if version == 1 else ("<u2", 2)
    names, formats, offsets = (
        ["tid", "value", "t0"],
        [tid[0], "<u4", "<u4"],
        [0, tid[1], tid[1] + 4],
    )
    if version == 3:
        names.append("t1")
        formats.append("<u4")
        offsets.append(10)
    return np.dtype(
        {"names": names, "formats": formats, "offsets": offsets, "itemsize": record_size}
    )


def data_header(version: int, data_offset: int, start_us: int, record_size: int) -> bytes:
    """The data header: magic, version, offset to data, start time, [record size], zeros."""
    head = struct.pack("<IHHQ", MAGIC, version, data_offset, start_us & 0xFFFF_FFFF_FFFF_FFFF)
    if version & 0x0F >= 3:
        head += struct.pack("<H", record_size)
    return head.ljust(data_offset, b"\0")


@dataclass(frozen=True)
class RecordLayout:
    """What goes into each record: the version, size, time columns (ns) and file ids."""

    version: int
    record_size: int
    times: tuple[npt.NDArray[np.int64], ...]  # one column (v1/v2) or cpu then wall (v3)
    thread_ids: npt.NDArray[np.uint16]  # the file's id per thread row
    method_ids: npt.NDArray[np.uint32]  # the file's id per method row (low two bits clear)


def record_chunks(trace: Trace, layout: RecordLayout) -> Iterator[bytes]:
    """The record bytes of every event, in file order, `CHUNK` records at a time."""
    ev = trace.events
    dtype = record_dtype(layout.version, layout.record_size)
    padded = layout.record_size > min_record_size(layout.version)
    for start in range(0, len(ev), CHUNK):
        stop = min(start + CHUNK, len(ev))
        rec = np.zeros(stop - start, dtype) if padded else np.empty(stop - start, dtype)
        rec["tid"] = layout.thread_ids[ev.thread[start:stop]]
        rec["value"] = layout.method_ids[ev.method[start:stop]] | ev.action[start:stop]
        for name, col in zip(("t0", "t1"), layout.times, strict=False):
            rec[name] = ((col[start:stop] // 1000) & 0xFFFF_FFFF).astype(np.uint32)
        yield rec.view(np.uint8).tobytes()
