"""Mapping a function over per-thread work items on a few OS threads (numpy releases the GIL
in its heavy loops), results in input order; used by `build_calls` and `thread_profiles`."""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def default_workers() -> int:
    """TRACEVIEW_WORKERS when set (`auto` = the CPU count, at most 4), else 1.

    One worker by default: two overlap the biggest thread's temporaries with another's, which
    costs about 1x the file size in peak memory for a shorter wall time on an idle machine.
    """
    env = os.environ.get("TRACEVIEW_WORKERS", "1")
    if env == "auto":
        return max(1, min(os.cpu_count() or 1, 4))
    return max(1, int(env)) if env.isdigit() else 1


def parallel_imap(
    fn: Callable[[T], R], items: Iterable[T], workers: int | None = None
) -> Iterator[R]:
    """`fn(x) for x in items`, in order, computed on up to `workers` threads with at most
    `workers + 1` results pending (so memory stays bounded by a few items)."""
    n = default_workers() if workers is None else max(1, workers)
    if n == 1:
        yield from (fn(x) for x in items)
        return
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


def _trimmer() -> Callable[[], object] | None:
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        trim: Callable[[int], object] = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    return lambda: trim(0)


_TRIM = _trimmer()


def release_memory() -> None:
    """Give freed heap memory back to the OS (glibc `malloc_trim`; a no-op elsewhere).

    numpy's large temporaries below glibc's (adaptive, up to 32 MB) mmap threshold come from
    the heap, and what a big thread's pairing freed would otherwise stay resident while the
    call table fills up.
    """
    if _TRIM is not None:
        _TRIM()
