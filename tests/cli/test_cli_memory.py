"""The CLI fixes glibc's mmap threshold so that freed arrays go back to the OS (cli/memory.py):
setting it is harmless to repeat and never fails, on any platform."""

from __future__ import annotations

import ctypes
import sys

import pytest

from traceview.cli import main
from traceview.cli.memory import M_MMAP_THRESHOLD, THRESHOLD, release_freed_memory


def test_release_is_repeatable() -> None:
    release_freed_memory()
    release_freed_memory()
    assert main(["--version"]) == 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc only")
def test_glibc_takes_the_threshold() -> None:
    mallopt = ctypes.CDLL(None).mallopt
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    assert mallopt(M_MMAP_THRESHOLD, THRESHOLD) == 1  # 1: accepted
