"""Sample records decoded one at a time by the plain decoder (`wire.fields`): the few a
vectorised pass cannot take (an unknown field of another wire type, a key over one byte).
Slow, simple and exact: a record it cannot decode is reported, never guessed at."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.readers.simpleperf import wire

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]


@dataclass
class Decoded:
    """The columns of `samples.Samples` (entries not yet named: their fields instead)."""

    record: I64
    time: U64
    tid: I64
    count: U64
    has_count: npt.NDArray[np.bool_]
    event: I64
    first: I64
    vaddr: U64
    file: I64
    symbol: I64
    execution: I64


def decode(
    buf: bytes | memoryview, records: I64, start: I64, stop: I64, which: I64
) -> tuple[Decoded, list[int]]:
    """The samples `which` (indices into `records`) one at a time, by the plain decoder, and
    the offsets of those that do not decode."""
    rows = []
    broken = []
    for k in which.tolist():
        try:
            rows.append((int(records[k]), *_one(buf, int(start[k]), int(stop[k]))))
        except wire.WireError:
            broken.append(int(start[k]))
    chains = [e for row in rows for e in row[6]]
    first = np.concatenate([[0], np.cumsum([len(row[6]) for row in rows])]).astype(np.int64)

    def col(i: int, dtype: type) -> npt.NDArray[Any]:
        return np.array([row[i] for row in rows], dtype=dtype)

    def ent(i: int, dtype: type) -> npt.NDArray[Any]:
        return np.array([e[i] for e in chains], dtype=dtype)

    got = Decoded(
        col(0, np.int64), col(1, np.uint64), col(2, np.int64), col(3, np.uint64), col(4, bool),
        col(5, np.int64), first, ent(0, np.uint64), ent(1, np.int64), ent(2, np.int64),
        ent(3, np.int64),
    )  # fmt: skip
    return got, broken


def _one(
    buf: bytes | memoryview, at: int, end: int
) -> tuple[int, int, int, bool, int, list[tuple[int, int, int, int]]]:
    """(time, tid, count, has_count, event, chain) of one sample, by the plain decoder."""
    time = tid = count = event = 0
    has = False
    chain = []
    for number, wt, value in wire.fields(buf, at, end):
        if number in (1, 2, 4, 5) and isinstance(value, int) and wt == wire.VARINT:
            if number == 1:
                time = value
            elif number == 2:
                tid = wire.int32(value)
            elif number == 4:
                count, has = value, True
            else:
                event = wire.int32(value)
        elif number == 3 and isinstance(value, bytes):
            e = {n: v for n, w, v in wire.fields(value) if w == wire.VARINT and isinstance(v, int)}
            chain.append(
                (
                    e.get(1, 0),
                    wire.int32(e.get(2, 0)),
                    wire.int32(e.get(3, 0)),
                    wire.int32(e.get(4, 0)),
                )
            )
        elif number in (1, 2, 3, 4, 5):
            raise wire.WireError(f"field {number} has wire type {wt}", at)
    return time, tid, count, has, event, chain
