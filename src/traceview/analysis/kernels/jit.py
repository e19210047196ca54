"""Compiled kernels (numba), for the loops numpy cannot vectorise well.

`njit(f)` compiles `f` with numba in nopython mode, releasing the GIL (so two threads can run
kernels on the two halves of a job) and caching the machine code on disk: numba writes it in
the `__pycache__` folder beside the kernel's module, or, where that is not writable, in a
user-wide cache folder (`NUMBA_CACHE_DIR` chooses another). The first call in a fresh
environment compiles (a fraction of a second per kernel); later processes load the cache.

Importing this module imports numba (~0.2 s): modules holding kernels are imported lazily,
inside the functions that need them, so commands that never run a kernel never pay for it
(tests/cli/test_cli_numba.py checks `info`, `stats`, `-r` and `dmtracedump`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba

F = TypeVar("F", bound=Callable[..., Any])


def njit(f: F) -> F:
    """`f` compiled by numba (nopython, nogil, cached), with its signature kept for mypy.
    Without a writable cache folder (a read-only install and home) numba refuses to cache:
    the kernel is then compiled in each process that uses it instead of failing."""
    try:
        return cast(F, numba.njit(cache=True, nogil=True)(f))
    except RuntimeError:  # "cannot cache function ...: no locator available for file ..."
        return cast(F, numba.njit(nogil=True)(f))


__all__ = ["njit"]
