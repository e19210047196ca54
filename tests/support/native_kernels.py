"""Kernels that must not run as native code (tests/analysis/test_native.py)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from traceview.analysis.kernels.jit import njit


@njit
def allocating(n: int) -> int:
    """Allocates an array: needs numba's runtime."""
    a = np.ones(n, dtype=np.int64)
    return int(a.sum())


@njit
def summing(a: npt.NDArray[np.int64]) -> int:
    """Allocates nothing: native."""
    total = 0
    for v in a:
        total += v
    return total


@njit
def largest(a: npt.NDArray[np.int64]) -> int:
    """Allocates nothing: native (built beside `summing` in another process)."""
    top = a[0]
    for v in a:
        top = max(top, v)
    return int(top)
