"""How a command's process asks glibc's malloc to handle freed memory; each setting returns
whether the C library took it (the commands go on either way).

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
from typing import Literal

M_TRIM_THRESHOLD = -1  # glibc's mallopt parameter numbers
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8
THRESHOLD = 4 << 20  # a server's fixed mmap threshold

# What became of a setting: glibc took every value ("set"), the C library refused one
# ("refused": mallopt returned 0, e.g. musl's), or there is no mallopt to ask ("unsupported").
# The commands go on either way; tests/cli/test_cli_memory.py insists on "set" under glibc.
Outcome = Literal["set", "refused", "unsupported"]


def release_freed_memory() -> Outcome:
    """Fix the mmap threshold at 4 MiB: every block of 4 MiB and more has its own mapping and
    leaves the process when freed (small allocations are unaffected)."""
    return _mallopt((M_MMAP_THRESHOLD, THRESHOLD))


def reuse_freed_memory() -> Outcome:
    """Keep freed memory in the heap for the next thread's temporaries: blocks up to 256 MiB
    from the heap, never trimmed, one arena (worker threads share and reuse the main heap).
    Called past the load."""
    return _mallopt((M_MMAP_THRESHOLD, 256 << 20), (M_TRIM_THRESHOLD, 1 << 30), (M_ARENA_MAX, 1))


def _mallopt(*settings: tuple[int, int]) -> Outcome:
    """Pass each (parameter, value) to the C library's mallopt; every one is tried."""
    if not sys.platform.startswith("linux"):
        return "unsupported"
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the process's own C library
    except (OSError, AttributeError):  # no C library to load, or one without mallopt
        return "unsupported"
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    taken = [mallopt(param, value) == 1 for param, value in settings]  # 1: accepted
    return "set" if all(taken) else "refused"
