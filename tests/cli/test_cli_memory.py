"""The commands' allocator settings (cli/memory.py): a server gives freed arrays back to the OS,
a one-shot dump keeps them for reuse; setting either is harmless to repeat, never fails, and
glibc takes the values."""

from __future__ import annotations

import ctypes
import sys

import pytest

from traceview.cli.memory import (
    M_MMAP_THRESHOLD,
    THRESHOLD,
    release_freed_memory,
    reuse_freed_memory,
)


def test_settings_are_repeatable() -> None:
    for _ in range(2):
        reuse_freed_memory()
        release_freed_memory()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc only")
def test_glibc_takes_the_threshold() -> None:
    mallopt = ctypes.CDLL(None).mallopt
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    assert mallopt(M_MMAP_THRESHOLD, THRESHOLD) == 1  # 1: accepted
