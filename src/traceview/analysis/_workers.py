"""Mapping a function over per-thread work items on a few OS threads (numpy releases the GIL
in its heavy loops), results in input order; used by `build_calls` and `thread_profiles`."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def default_workers() -> int:
    """The CPU count (at most 4), or TRACEVIEW_WORKERS when set."""
    env = os.environ.get("TRACEVIEW_WORKERS")
    if env and env.isdigit():
        return max(1, int(env))
    return max(1, min(os.cpu_count() or 1, 4))


def parallel_map(fn: Callable[[T], R], items: Iterable[T], workers: int | None = None) -> list[R]:
    """`[fn(x) for x in items]`, items produced lazily and at most `2 * workers` pending."""
    n = default_workers() if workers is None else max(1, workers)
    if n == 1:
        return [fn(x) for x in items]
    out: list[Future[R]] = []
    with ThreadPoolExecutor(max_workers=n) as pool:
        for x in items:
            # keep memory bounded: wait for the oldest item before queueing too many
            while sum(not f.done() for f in out) >= 2 * n:
                next(f for f in out if not f.done()).result()
            out.append(pool.submit(fn, x))
        return [f.result() for f in out]
