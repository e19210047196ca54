"""Mapping a function over per-thread work items on a few OS threads (numpy and the compiled
kernels release the GIL in their heavy loops), results in input order; used by
`direct_profile`, the exports and the timeline; and cutting row segments into equal pieces for
them (`pieces`: the merged trees and the profile of a call table)."""

from __future__ import annotations

import itertools
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, TypeVar

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from concurrent.futures import Future

I64 = npt.NDArray[np.int64]
PIECE_ROWS = 1 << 20  # fewer rows than this are one piece

T = TypeVar("T")
R = TypeVar("R")


def default_workers(unset: int = 1) -> int:
    """TRACEVIEW_WORKERS when set (`auto` = the CPU count, at most 4), else `unset` (at most
    the CPU count).

    One worker by default: two overlap the biggest thread's temporaries with another's.
    Work whose extra peak is small asks for more: formatting bounded chunks and the compiled
    passes (no call-sized temporaries).
    """
    cpus = os.cpu_count() or 1
    env = os.environ.get("TRACEVIEW_WORKERS")
    if env is None:
        return max(1, min(unset, cpus))
    if env == "auto":
        return max(1, min(cpus, 4))
    # ASCII digits only ('²'.isdigit() is True), and few of them (int() refuses 4300+)
    if env.isascii() and env.isdigit() and len(env) <= 3:
        return max(1, int(env))
    return 1


def parallel_imap(
    fn: Callable[[T], R], items: Iterable[T], workers: int | None = None
) -> Iterator[R]:
    """`fn(x) for x in items`, in order, computed on up to `workers` threads with at most
    `workers + 1` results pending (so memory stays bounded by a few items)."""
    n = default_workers() if workers is None else max(1, workers)
    if n == 1:
        yield from (fn(x) for x in items)
        return
    from concurrent.futures import ThreadPoolExecutor  # only when there is more than one

    with ThreadPoolExecutor(max_workers=n) as pool:
        pending: deque[Future[R]] = deque()
        for x in items:
            pending.append(pool.submit(fn, x))
            if len(pending) > n:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def parallel_map(fn: Callable[[T], R], items: Iterable[T], workers: int | None = None) -> list[R]:
    """`[fn(x) for x in items]` computed like `parallel_imap`."""
    return list(parallel_imap(fn, items, workers))


def pieces(segments: I64, n: int) -> list[tuple[I64, I64, I64]]:
    """`segments` ((lo, hi) row pairs) cut into `n` pieces of about equal rows, anywhere, each
    as its (lo, hi) arrays and the index of the segment each came from; one piece when the
    rows are fewer than `PIECE_ROWS` (not worth a thread)."""
    sizes = segments[:, 1] - segments[:, 0]
    total = int(sizes.sum())
    index = np.arange(len(segments), dtype=np.int64)
    if n <= 1 or total < PIECE_ROWS:
        return [(segments[:, 0].copy(), segments[:, 1].copy(), index)]
    before = np.concatenate(([0], np.cumsum(sizes)))  # rows before each segment
    cuts = [total * i // n for i in range(n + 1)]
    out = []
    for a, b in itertools.pairwise(cuts):
        lo = np.clip(a - before[:-1], 0, sizes) + segments[:, 0]
        hi = np.clip(b - before[:-1], 0, sizes) + segments[:, 0]
        keep = hi > lo
        out.append((lo[keep], hi[keep], index[keep]))
    return out
