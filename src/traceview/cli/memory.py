"""How a command's process asks glibc's malloc to handle freed memory (a no-op elsewhere).

glibc serves a block above its mmap threshold with a mapping of its own, unmapped when freed;
below it, from heaps that keep their pages for reuse. The threshold starts at 128 KiB and
rises to the size of each mapped block freed (up to 32 MiB). Two commands want otherwise:

- A one-shot dump (`-r`, `dmtracedump`) frees and reallocates the same big arrays thread after
  thread: kept in the heap, their pages are reused instead of faulted in and zeroed again
  (`reuse_freed_memory`, a third of the run's time at 10M records).
- A server (`view`, `serve`) lives on after its big temporaries: freed, they must leave the
  process, or the pages stay resident in per-thread heaps (at 70M records the viewer held
  ~170 MiB it no longer used, and peaked that much higher) (`release_freed_memory`).

The library leaves the process's allocator alone.
"""

from __future__ import annotations

import ctypes
import sys

M_TRIM_THRESHOLD = -1  # glibc's mallopt parameter numbers
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8
THRESHOLD = 4 << 20  # a server's fixed mmap threshold


def release_freed_memory() -> None:
    """Fix the mmap threshold at 4 MiB: every block of 4 MiB and more has its own mapping and
    leaves the process when freed (small allocations are unaffected)."""
    _mallopt((M_MMAP_THRESHOLD, THRESHOLD))


def reuse_freed_memory() -> None:
    """Keep freed memory in the heap for the next thread's temporaries: blocks up to 256 MiB
    from the heap, never trimmed, one arena (worker threads share and reuse the main heap).
    Called past the load."""
    _mallopt((M_MMAP_THRESHOLD, 256 << 20), (M_TRIM_THRESHOLD, 1 << 30), (M_ARENA_MAX, 1))


def _mallopt(*settings: tuple[int, int]) -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the process's own C library
    except (OSError, AttributeError):
        return
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    for param, value in settings:
        mallopt(param, value)
