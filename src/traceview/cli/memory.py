"""Freed memory back to the operating system at once, for the commands' processes.

glibc's malloc serves a block above its mmap threshold with a mapping of its own, unmapped
when freed; below it, from heaps that keep their pages for reuse. The threshold starts at
128 KiB and rises to the size of each mapped block freed (up to 32 MiB), so after the first
big temporaries (a thread's column, tens of MiB) later ones come from heaps, one per worker
thread, and their pages stay resident: at 70M records the viewer held ~170 MiB it no longer
used, and its peak was that much higher. A fixed threshold keeps every block of 4 MiB and
more on its own mapping (small allocations are unaffected). The CLI sets it once at start;
the library leaves the process's allocator alone.
"""

from __future__ import annotations

import ctypes
import sys

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter number
THRESHOLD = 4 << 20


def release_freed_memory() -> None:
    """Fix glibc's mmap threshold at 4 MiB (a no-op off Linux or without `mallopt`)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the process's own C library
    except (OSError, AttributeError):
        return
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    mallopt(M_MMAP_THRESHOLD, THRESHOLD)
