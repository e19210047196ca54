"""The commands' allocator settings (cli/memory.py), measured in a fresh process: after
`release_freed_memory` a freed 8 MiB array leaves the process (its pages no longer resident,
/proc/self/statm), after `reuse_freed_memory` a freed 64 MiB one stays for reuse, each the
opposite of glibc's default in the same run; every setting says "set" under glibc, also when
repeated, and a refusal or a missing mallopt is reported, not swallowed."""

from __future__ import annotations

import ctypes
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from traceview.cli import memory
from traceview.cli.memory import (
    M_MMAP_THRESHOLD,
    THRESHOLD,
    release_freed_memory,
    reuse_freed_memory,
)

ROOT = Path(__file__).resolve().parents[2]
GLIBC = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"
glibc_only = pytest.mark.skipif(not GLIBC, reason="glibc's malloc only")

# argv: the setting ("none", "release", "reuse") and the block size. The first block, mapped
# and freed, raises glibc's mmap threshold to 16 MiB (its default rule), so without a setting
# an 8 MiB block comes from the heap and stays resident when freed, and a 64 MiB one (above
# the 32 MiB the threshold rises to at most) is mapped and leaves.
FREE_ONE = """
import ctypes, json, os, sys
from traceview.cli import memory

libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
PAGE = os.sysconf("SC_PAGE_SIZE")

def resident():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE

def touched(n):
    block = libc.malloc(n)
    ctypes.memset(block, 1, n)
    return block

libc.free(touched(16 << 20))
setting = {"none": None, "release": memory.release_freed_memory,
           "reuse": memory.reuse_freed_memory}[sys.argv[1]]
status = setting() if setting else None
size = int(sys.argv[2])
block = touched(size)
before = resident()
libc.free(block)
print(json.dumps({"status": status, "returned": (before - resident()) / size}))
"""

REPEAT = """
import json
from traceview.cli import memory
print(json.dumps([f() for _ in range(2)
                  for f in (memory.reuse_freed_memory, memory.release_freed_memory)]))
"""


def run(script: str, *args: str) -> Any:
    """Run `script` in a fresh Python (this package first on the path, glibc's malloc tunables
    of the environment left out) and return the JSON it prints."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MALLOC_", "GLIBC_"))}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    out = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    return json.loads(out.stdout)


@glibc_only
def test_a_server_gives_freed_arrays_back() -> None:
    kept = run(FREE_ONE, "none", str(8 << 20))
    assert kept["returned"] < 0.1  # glibc's default: an 8 MiB block stays in the heap
    released = run(FREE_ONE, "release", str(8 << 20))
    assert released["status"] == "set"
    assert released["returned"] > 0.9  # its pages left the process


@glibc_only
def test_a_dump_keeps_freed_arrays_for_reuse() -> None:
    released = run(FREE_ONE, "none", str(64 << 20))
    assert released["returned"] > 0.9  # glibc's default: a 64 MiB block has its own mapping
    kept = run(FREE_ONE, "reuse", str(64 << 20))
    assert kept["status"] == "set"
    assert kept["returned"] < 0.1  # its pages stay for the next thread's temporaries


@glibc_only
def test_settings_are_repeatable() -> None:
    assert run(REPEAT) == ["set"] * 4


@glibc_only
def test_glibc_takes_the_threshold() -> None:
    mallopt = ctypes.CDLL(None).mallopt
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    assert mallopt(M_MMAP_THRESHOLD, THRESHOLD) == 1  # 1: accepted


def test_a_refusal_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    """A C library whose mallopt answers 0 (musl's) refuses: the setting says so."""
    calls: list[tuple[int, int]] = []

    def mallopt(param: int, value: int) -> int:
        calls.append((param, value))
        return 0 if param == memory.M_TRIM_THRESHOLD else 1

    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(ctypes, "CDLL", lambda _name: SimpleNamespace(mallopt=mallopt))
    assert release_freed_memory() == "set"
    assert reuse_freed_memory() == "refused"
    assert len(calls) == 4  # every value was still tried


def test_no_mallopt_is_unsupported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(ctypes, "CDLL", lambda _name: SimpleNamespace())
    assert release_freed_memory() == "unsupported"
    monkeypatch.setattr(sys, "platform", "darwin")
    assert reuse_freed_memory() == "unsupported"
