"""The system trace a method trace is merged into (`export --merge-into`): checked to be a whole
Perfetto `Trace`, scanned for the packet sequence ids and track uuids it already uses (so the
method trace's are new), and copied to the output ahead of the method trace's packets.

A Perfetto trace is a sequence of `Trace.packet` fields, so two traces written one after the
other are one trace: the method tracks' packets only need sequence ids and track uuids of
their own. Their timestamps are CLOCK_MONOTONIC, which the system trace's clock snapshots
relate to its own clock (BOOTTIME), so the method trace adds no snapshot of its own.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import IO

import numpy as np

from traceview.model import TraceError, TraceFormatError

UUIDS = 0x7476_6D74_0000_0000  # the band of track uuids the method tracks take ("tvmt")
BAND = 1 << 40
PIECE = 1 << 24  # bytes copied per write
PROBLEMS = {
    1: ("not a Perfetto trace: a top-level field is not a packet", "field 1 (byte 0x0a)"),
    2: ("the Perfetto trace is cut short: a packet runs past the end of the file", None),
    3: ("a malformed field in a Perfetto packet", None),
}


@dataclass(frozen=True)
class System:
    """What the merged tracks may use: the first free packet sequence id and track uuid."""

    sequence: int
    uuid: int


def append_to(path: str, out: IO[bytes], offset: int | None) -> System:
    """Copy the Perfetto trace at `path` to `out` and say which sequence ids and track uuids
    come next. `offset` is the method trace's CLOCK_MONOTONIC offset (None: unknown, so its
    calls cannot be placed among the system's events: refused). TraceError (one line naming
    the file, with the byte offset for a format problem) when the file cannot be merged into."""
    from traceview.analysis.kernels.protoscan import scan  # numba: paid only by this format

    if offset is None:
        raise TraceError(
            "--merge-into needs the method trace's CLOCK_MONOTONIC start, and this trace does "
            "not record one (only ART traces, Android 16 dumps with a summary packet and "
            "simpleperf recordings do; a thread-CPU-only trace has no wall clock)"
        )
    size = os.stat(path).st_size
    if size == 0:
        raise TraceFormatError("the Perfetto trace is empty", offset=0, path=path)
    data = np.memmap(path, dtype=np.uint8, mode="r")
    if bytes(data[:2]) == b"\x1f\x8b":
        raise TraceFormatError(
            "the Perfetto trace is gzip-compressed: decompress it first (gunzip)",
            offset=0,
            path=path,
        )
    status, at, sequence, uuid = scan(data, UUIDS, UUIDS + BAND)
    if status:
        message, expected = PROBLEMS[status]
        found = bytes(data[at : at + 4]).hex(" ")
        raise TraceFormatError(message, offset=at, expected=expected, found=found, path=path)
    if sequence >= (1 << 31):
        raise TraceFormatError(
            "the Perfetto trace uses every packet sequence id", offset=None, path=path
        )
    for lo in range(0, size, PIECE):
        out.write(data[lo : lo + PIECE].data)
    del data
    return System(sequence + 1, uuid)


__all__ = ["BAND", "UUIDS", "System", "append_to"]
