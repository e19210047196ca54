"""The layout of a report-sample file: `SIMPLEPERF`, a u16 version, then records, each a u32
length (little-endian) and one `Record` message, until a zero length.

`frame` finds every record and what it holds (the `Record` oneof: sample 1, lost 2, file 3,
thread 4, meta_info 5, context_switch 6) without decoding it: where its payload starts, how
long it is, and which kind. Damage (a length past the end, a record that is not one message,
kinds this reader does not know) becomes diagnostics; memory follows the records present,
never a declared length.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from traceview.analysis.kernels.native import Native
from traceview.model import Diagnostic

MAGIC = b"SIMPLEPERF"
HEADER = len(MAGIC) + 2
SAMPLE, LOST, FILE, THREAD, META, SWITCH = 1, 2, 3, 4, 5, 6
KINDS = {
    SAMPLE: "sample",
    LOST: "lost",
    FILE: "file",
    THREAD: "thread",
    META: "meta_info",
    SWITCH: "context_switch",
}
_chain = Native("framing", "chain")  # run as native code: no numba to import (kernels/native.py)

I64 = npt.NDArray[np.int64]


@dataclass
class Frames:
    """The records of a file, in file order: `kind[i]` (a `Record` field number, 0 when the
    record is damaged) and its payload `buf[start[i]:stop[i]]`."""

    kind: npt.NDArray[np.int32]
    start: I64
    stop: I64
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def of(self, kind: int) -> npt.NDArray[np.intp]:
        """The record indices of one kind."""
        return np.flatnonzero(self.kind == kind)


def lengths(buf: bytes | memoryview, at: int) -> tuple[I64, I64, list[Diagnostic]]:
    """Walk the u32 length chain from `at` (`kernels.framing.chain`): the records' payload
    offsets and sizes, and what ended it."""
    raw = np.frombuffer(buf, dtype=np.uint8)
    end = len(raw)
    room = min(max(64, (end - at) // 256), 1 << 20)  # records, grown while the chain goes on
    starts: list[I64] = []
    sizes: list[I64] = []
    while True:
        start, size = np.empty(room, dtype=np.int64), np.empty(room, dtype=np.int64)
        n, at = _chain(raw, at, start, size)
        starts.append(start[:n])
        sizes.append(size[:n])
        if n < room:
            break
        room *= 2
    found = np.concatenate(starts), np.concatenate(sizes)
    if at + 4 > end:
        what = "the file ends without the end marker (a zero length): it was cut short"
        if at < end:
            what += f"; {end - at} bytes of a record length were dropped"
        return *found, [Diagnostic("no-end-marker", what, offset=at)]
    n = int.from_bytes(raw[at : at + 4].tobytes(), "little")
    if n:
        what = f"the last record declares {n} bytes but only {end - at - 4} remain: dropped"
        return *found, [Diagnostic("truncated-record", what, offset=at)]
    if at + 4 < end:
        what = f"{end - at - 4} bytes after the end marker (a zero length) were ignored"
        return *found, [Diagnostic("trailing-bytes", what, offset=at + 4)]
    return *found, []


def frame(buf: bytes | memoryview, at: int) -> Frames:
    """Every record from offset `at` (after the header, or 0 for a headerless file)."""
    start, size, diags = lengths(buf, at)
    raw = np.frombuffer(buf, dtype=np.uint8)
    # each record is one field: a key byte (number << 3 | 2) and a varint length
    last = max(len(raw) - 1, 0)
    key = raw[start].astype(np.int64) if len(start) else np.zeros(0, dtype=np.int64)
    inner = np.zeros(len(start), dtype=np.int64)
    width = np.zeros(len(start), dtype=np.int64)
    going = np.ones(len(start), dtype=bool)
    for k in range(5):  # a record's length fits a u32: at most 5 varint bytes
        inside = 1 + k < size  # a length byte past the record: never complete
        b = np.where(inside, raw[np.minimum(start + 1 + k, last)], 0x80).astype(np.int64)
        inner |= np.where(going, (b & 0x7F) << (7 * k), 0)
        width += going
        going &= b >= 0x80
    whole = ~going & (1 + width + inner == size) & (key & 7 == 2)
    number = key >> 3
    kind = np.where(whole, number, 0).astype(np.int32)
    unknown = whole & ((number < 1) | (number > SWITCH))
    kind[unknown] = -1
    _note(
        diags,
        ~whole,
        start - 4,
        "bad-record",
        "records that are not one length-delimited field (not a simpleperf Record) were skipped",
    )
    _note(
        diags,
        unknown,
        start - 4,
        "unknown-record",
        "records of kinds this reader does not know (a newer simpleperf?) were skipped",
    )
    payload = start + 1 + width
    return Frames(kind, payload, payload + inner, diags)


def _note(
    diags: list[Diagnostic], mask: npt.NDArray[np.bool_], at: I64, code: str, what: str
) -> None:
    hits = np.flatnonzero(mask)
    if len(hits):
        diags.append(
            Diagnostic(code, f"{len(hits)} {what}", offset=int(at[hits[0]]), count=len(hits))
        )
