"""Compiled kernels (numba), for the loops numpy cannot vectorise well.

`njit(f)` compiles `f` with numba in nopython mode, releasing the GIL (so two threads can run
kernels on the two halves of a job) and caching the machine code on disk: numba writes it in
the `__pycache__` folder beside the kernel's module, or, where that is not writable, in a
user-wide cache folder (`NUMBA_CACHE_DIR` chooses another). The first call in a fresh
environment compiles (a fraction of a second per kernel); later processes load the cache.
numba checks a cache entry against its kernel's own file only: a kernel compiled with code
from another module (hashing.py, `edges.kept`) keeps its cached code when only that module
changes, so delete the `*.nbi`/`*.nbc` files after editing one.

Importing this module imports numba (~0.2 s; numba's compiler registries wait for the first
compilation, so a process that only loads cached kernels never imports them): modules holding
kernels are imported lazily, inside the functions that need them, so commands that never run
a kernel never pay for it (tests/cli/test_cli_numba.py checks `info`, `stats`, `-r` and
`dmtracedump`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba

F = TypeVar("F", bound=Callable[..., Any])


def _registries_when_compiling() -> None:
    """Defer the CPU context's lowering registries to the first compilation: numba imports
    them (some sixty modules, ~0.15 s of a command's start) on its first cache load, which
    needs none of them; only compiling does. Where numba's internals are not as expected
    (another version), numba is left as it is (tests/analysis/test_jit_start.py)."""
    import importlib

    try:
        context = importlib.import_module("numba.core.cpu").CPUContext
        compiler = importlib.import_module("numba.core.dispatcher")._FunctionCompiler
        runtime = importlib.import_module("numba.core.runtime").rtsys
        full = context.load_additional_registries
        compile_ = compiler.compile
    except (ImportError, AttributeError):
        return

    def light(self: Any) -> None:
        runtime.initialize(self)  # the allocator a loaded kernel calls

    def compiling(self: Any, args: Any, return_type: Any) -> Any:
        if context.load_additional_registries is light:  # (under numba's compiler lock)
            context.load_additional_registries = full
            self.targetdescr.target_context.refresh()
        return compile_(self, args, return_type)

    context.load_additional_registries = light
    compiler.compile = compiling


_registries_when_compiling()


def _stale_index_is_a_miss() -> None:
    """Read a kernel's cache index that no longer unpickles as no index: numba unpickles it
    before checking that it is fresh, so an index an older traceview left (in `__pycache__`,
    or NUMBA_CACHE_DIR, across an upgrade) whose kernel types name a class since renamed or
    removed failed every use of the kernel. numba then compiles it and writes a new index
    (tests/analysis/test_jit_start.py)."""
    import importlib
    import pickle

    try:
        index_file = importlib.import_module("numba.core.caching").IndexDataCacheFile
        load = index_file._load_index
    except (ImportError, AttributeError):
        return

    def loading(self: Any) -> Any:
        try:
            return load(self)
        except (AttributeError, ImportError, EOFError, pickle.UnpicklingError):
            return {}

    index_file._load_index = loading


_stale_index_is_a_miss()


def njit(f: F) -> F:
    """`f` compiled by numba (nopython, nogil, cached), with its signature kept for mypy.
    Without a writable cache folder (a read-only install and home) numba refuses to cache:
    the kernel is then compiled in each process that uses it instead of failing."""
    try:
        return cast(F, numba.njit(cache=True, nogil=True)(f))
    except RuntimeError:  # "cannot cache function ...: no locator available for file ..."
        return cast(F, numba.njit(nogil=True)(f))


__all__ = ["njit"]
