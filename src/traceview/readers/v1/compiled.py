"""The compiled decoding of one chunk of V1 records (analysis/kernels/decode.py), for
`RecordDecoder`: the thread and method rows and actions on the calling thread while each clock
carried is unwrapped on a thread of its own (the kernels release the GIL), so a dual-clock
chunk is three passes at once on a machine with cores for them.

Each clock's kernel finds the records' thread rows itself (the reader's thread table) and each
clock's per-thread state is saved first: when a record names an id the tables do not know,
the chunk is left to the numpy path with every state as it was.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from traceview.analysis.kernels.native import Native

if TYPE_CHECKING:
    from traceview.readers.v1.records import RecordDecoder

PARALLEL = 1 << 16  # records: a smaller chunk is decoded on the calling thread alone
CORES = os.cpu_count() or 1
_NONE = np.zeros(0, dtype=np.int64)  # no column: a clock whose state alone is carried
_POOL: list[ThreadPoolExecutor] = []
_LOCK = threading.Lock()
_ids = Native("decode", "ids")  # run as native code: no numba to import (kernels/native.py)
_times = Native("decode", "times")


def _pool() -> ThreadPoolExecutor:
    """The decoding threads (two: a dual-clock chunk's clocks), started on first use."""
    with _LOCK:
        if not _POOL:
            _POOL.append(ThreadPoolExecutor(2, thread_name_prefix="traceview-decode"))
        return _POOL[0]


def decode_chunk(dec: RecordDecoder, rec: np.ndarray) -> bool:
    """Decode the structured records `rec` into `dec`'s next rows; False (nothing changed)
    when a record names a thread or method id `dec`'s tables do not know."""
    s, e = dec.row, dec.row + len(rec)
    empty = np.zeros(0, dtype=np.int32)
    mlut = dec.mlut if dec.mlut is not None else empty
    methods = (mlut, dec.mlo, dec.sorted_keys, dec.sorted_rows)
    jobs: list[Callable[[], tuple[int, int, int]]] = []
    saved = []
    for i, name in enumerate(dec.layout.clocks):
        if name not in dec.carried:
            continue
        clock = dec.clocks[name]
        clock.grow(len(dec.thread_ids))
        state = (clock.last, clock.cmax, clock.first)
        saved.append((clock, tuple(a.copy() for a in state)))
        column = dec.times[name][s:e] if name in dec.times else _NONE
        jobs.append(partial(_times, rec[f"t{i}"], rec["tid"], dec.tlut, state, column))
    together = len(rec) >= PARALLEL and CORES > 1
    pending: list[Future[tuple[int, int, int]]] = (
        [_pool().submit(job) for job in jobs] if together else []
    )
    out = (dec.thread[s:e], dec.method[s:e], dec.action[s:e])
    done, bad = _ids(rec["tid"], rec["mid"], dec.tlut, methods, out)
    if together:
        found = [p.result() for p in pending]
    else:
        found = [job() for job in jobs] if done == len(rec) else []
    if done < len(rec) or any(n < len(rec) for n, _, _ in found):
        for clock, (last, cmax, first) in saved:
            clock.last[:], clock.cmax[:], clock.first[:] = last, cmax, first
        return False
    dec.bad_actions += bad
    for (clock, _), (_, wraps, back) in zip(saved, found, strict=True):
        clock.wraps += wraps
        clock.backwards += back
    dec.pos += len(rec)
    dec.row = e
    return True
