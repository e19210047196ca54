"""Kernels run from their machine code without importing numba: what lets `traceview -r`,
`dmtracedump`, `stats` and `info` start in a fraction of the time on a large trace.

Through numba's dispatcher, a process pays ~0.2 s to import numba and 10–50 ms to load each
cached kernel (numba rebuilds its typing and runtime first) before any record is counted:
45–65 % of Debian's whole dmtracedump run at 10M records (benchmarks/RESULTS.md). Here a
kernel's machine code is kept as an object file, mapped into memory by kernels/elf.py (well
under a millisecond a kernel; llvmlite's engine where that cannot: ~0.04 s once, then ~1 ms a
kernel), then called through ctypes, which lets go of the GIL meanwhile.

`Native(module, name)` is the njit kernel `name` of `traceview.analysis.kernels.<module>` (or
of the dotted `module`), called with the same arguments: arrays, ints, bools and (named)
tuples of them. Each call is typed as numba types it (dtype, dimensions, layout, alignment,
writability) and flattened into one block of int64s (an array's address, shape and strides;
a scalar's value). A small njit wrapper per typing rebuilds the arguments from that block as
arrays that own no memory, calls the kernel and writes its ints after them.

The kernel must not allocate (numba's runtime is not loaded): it writes into arrays its caller
made and returns ints, a tuple of ints or nothing. Building an object (the first call of a
typing on a machine) imports numba and compiles; the object is then cached as numba caches
(this module's `__pycache__`, else the user's cache folder; `NUMBA_CACHE_DIR` chooses
another), keyed by the kernels' sources, numba's and llvmlite's releases and the host CPU.
The install builds the objects of the typings real traces give the commands' kernels and
ships them in `native/` beside this module (setup.py, `cli.precompile.build_native`): a
fresh install compiles nothing on its first run, on the machine it was installed on.
The build (kernels/nativebuild.py) refuses an object that calls anything outside the C
library (tests/analysis/test_native.py).
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import importlib
import importlib.util
import json
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

_HERE = Path(__file__).parent
SHIPPED = _HERE / "native"  # objects built by the install (setup.py), read-only
_LOCK = threading.RLock()
_OK = (0, -2)  # numba's return codes: done, done returning None
_ELF64 = sys.platform.startswith("linux") and sys.byteorder == "little" and sys.maxsize > 2**32
STUB = "traceview_no_runtime"  # what the numba runtime's destructor call is renamed to


class NativeError(RuntimeError):
    """A kernel that cannot run as native code (it allocates, or calls outside libc)."""


class NotHere(NativeError):
    """This platform's objects are not ones `nativebuild.undefined` reads (not ELF64
    little-endian): its kernels run through numba's dispatcher instead."""


class Native:
    """The kernel `name` of `traceview.analysis.kernels.<module>`, run from its cached
    machine code (the module docstring)."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __call__(self, *args: Any) -> Any:
        leaves: list[int] = []
        key = _flatten(args, leaves)
        entry = _PROCESS.entries.get((self.module, self.name, key))
        if entry is None:
            entry = _entry(self.module, self.name, key, args)
        fn, results, many = entry
        if results < 0:  # (`NotHere`: numba's dispatcher)
            return fn(*args)
        block = np.array([*leaves, *([0] * results)], dtype=np.int64)
        ret, exc = ctypes.c_int64(), ctypes.c_void_p()
        status = fn(ctypes.addressof(ret), ctypes.addressof(exc), block.ctypes.data)
        if status not in _OK:
            raise NativeError(f"kernel {self.module}.{self.name} failed (status {status})")
        out = block[len(leaves) :].tolist()
        if many:
            return tuple(out)
        return out[0] if results else None


def _flatten(x: Any, leaves: list[int]) -> str:
    """`x`'s typing (as numba types it) and its values appended to `leaves`."""
    if isinstance(x, np.ndarray):
        flags = x.flags
        layout = "C" if flags.c_contiguous else "F" if flags.f_contiguous else "A"
        leaves.append(x.__array_interface__["data"][0])
        leaves.extend(x.shape)
        leaves.extend(x.strides)
        ro = "" if flags.writeable else "r"
        un = "" if flags.aligned else "u"
        return f"{x.dtype.str}{x.ndim}{layout}{ro}{un}"
    if isinstance(x, tuple):
        inner = ",".join(_flatten(v, leaves) for v in x)
        named = type(x).__name__ if hasattr(x, "_fields") else ""
        return f"{named}({inner})"
    if isinstance(x, (bool, np.bool_)):
        leaves.append(int(x))
        return "b"
    if isinstance(x, (int, np.integer)):
        leaves.append(int(x))
        return "i"
    raise TypeError(f"a native kernel takes arrays, ints and tuples, not {type(x).__name__}")


Entry = tuple[Callable[..., int], int, bool]  # the function, its result count, a tuple?


def _entry(module: str, name: str, key: str, args: tuple[Any, ...]) -> Entry:
    """The entry of `module.name` typed `key`: loaded from the cache, else built (and
    cached), once per process."""
    with _LOCK:
        known = _PROCESS.entries.get((module, name, key))
        if known is not None:
            return known
        if not _ELF64:  # (macOS, Windows: no object here to load)
            return _dispatched(module, name, key)
        folder = _cache_dir()
        where = module_path(module)
        stamp = _stamp()
        if not where.startswith(f"{__package__}."):  # a kernel from elsewhere: its source too
            stamp = digest(stamp + _source_of(where))
        file = f"{module}.{name}-{digest(key)}-{stamp}.o"
        path = folder / file if folder else None
        found = _cached(SHIPPED / file, path)
        if found is not None:
            meta, obj = found
        else:  # none yet, or damaged: built (again)
            from traceview.analysis.kernels import nativebuild

            try:
                data = nativebuild.build(module, name, key, args)
            except NotHere:
                return _dispatched(module, name, key)
            if path:
                _store(path, data)
            meta, obj = _parse(data)
        address = _load(obj, meta["externals"], meta["symbol"])
        fn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
        entry = fn(address), int(meta["results"]), bool(meta["tuple"])
        _PROCESS.entries[module, name, key] = entry
        return entry


def _cached(*paths: Path | None) -> tuple[dict[str, Any], bytes] | None:
    """The header and object of the first of `paths` that holds a whole one."""
    for path in paths:
        if path is not None:
            with contextlib.suppress(OSError, ValueError):
                return _parse(path.read_bytes())
    return None


def _dispatched(module: str, name: str, key: str) -> Entry:
    """The entry running `module.name` through numba's dispatcher (`NotHere`)."""
    from traceview.analysis.kernels import nativebuild

    entry: Entry = nativebuild.kernel(module, name), -1, False
    _PROCESS.entries[module, name, key] = entry
    return entry


def _parse(data: bytes) -> tuple[dict[str, Any], bytes]:
    """A cache file's header and object; ValueError unless whole (its object's checksum)."""
    head, _, obj = data.partition(b"\n")
    meta = json.loads(head)  # (ValueError when damaged, or empty)
    if (
        not isinstance(meta, dict)
        or meta.get("sha1") != hashlib.sha1(obj, usedforsecurity=False).hexdigest()
    ):
        raise ValueError("a damaged cache file")
    return meta, obj


def digest(text: str) -> str:
    return hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()[:16]


class _Process:
    """This process's machine-code state (no trace data): the stamp of what objects depend
    on, the objects its code lives in and, when used, llvmlite's engine."""

    def __init__(self) -> None:
        self.stamp = ""
        self.engine: Any = None  # (llvmlite's, where kernels/elf.py cannot load an object)
        self.libc: ctypes.CDLL | None = None
        self.objects: list[Any] = []
        self.entries: dict[tuple[str, str, str], Entry] = {}


_PROCESS = _Process()


def _stamp() -> str:
    """What a cached object depends on: the kernels' sources, numba's and llvmlite's
    installs, the host CPU."""
    if not _PROCESS.stamp:
        h = hashlib.sha1(usedforsecurity=False)
        for f in sorted(_HERE.glob("*.py")):
            h.update(f.name.encode() + f.read_bytes())
        for package in ("numba", "llvmlite"):  # their releases, wherever installed
            spec = importlib.util.find_spec(package)
            origin = Path(spec.origin) if spec and spec.origin else None
            try:
                h.update(origin.with_name("_version.py").read_bytes() if origin else b"")
            except OSError:  # (no version file: this install itself)
                st = origin.stat() if origin else None
                h.update(f"{package}:{origin}:{st and (st.st_size, st.st_mtime_ns)}".encode())
        h.update(_cpu())
        _PROCESS.stamp = h.hexdigest()[:16]
    return _PROCESS.stamp


_CPU_FIELDS = {  # /proc/cpuinfo's lines naming the CPU and its features (x86, arm64)
    "vendor_id", "cpu family", "model", "model name", "flags",
    "CPU implementer", "CPU architecture", "CPU variant", "CPU part", "Features",
}  # fmt: skip


def _cpu() -> bytes:
    """The host CPU the objects are built for: its name and features as Linux lists them for
    the first processor (read without importing llvmlite), else as LLVM finds them."""
    try:
        with open("/proc/cpuinfo", "rb") as f:
            first = f.read(1 << 16).split(b"\n\n", 1)[0].decode(errors="replace")
    except OSError:
        first = ""
    named = [line for line in first.splitlines() if line.partition(":")[0].strip() in _CPU_FIELDS]
    if named:
        return "\n".join([os.uname().machine, *named]).encode()
    llvm = llvm_binding()
    found: str = llvm.get_host_cpu_name() + llvm.get_host_cpu_features().flatten()
    return found.encode()


def module_path(module: str) -> str:
    """Kernel module `module`'s import path: one of this folder's, or a dotted path."""
    return module if "." in module else f"{__package__}.{module}"


def _source_of(module: str) -> str:
    """The source of a kernel module outside this folder (tests' kernels), for its key."""
    spec = importlib.util.find_spec(module)
    return Path(spec.origin).read_text() if spec and spec.origin else ""


def _cache_dir() -> Path | None:
    """Where objects are cached: NUMBA_CACHE_DIR's, else this module's `__pycache__`, else
    the user's cache folder (the first writable); None when none is (each process then
    builds what it runs: a shared folder such as /tmp is never trusted with machine code)."""
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    places = [Path(chosen) / "traceview"] if chosen else [_HERE / "__pycache__", home / "traceview"]
    for place in places:
        folder = place / "native"
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(folder, os.W_OK):
            return folder
    return None


def _store(path: Path, data: bytes) -> None:
    """Write `data` at `path` whole or not at all (another process may write it too)."""
    import tempfile

    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".native-")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


# loading: without llvmlite where kernels/elf.py can, else with llvmlite alone


def llvm_binding() -> Any:
    return importlib.import_module("llvmlite.binding")


def _load(obj: bytes, externals: list[str], symbol: str) -> int:
    """Load the object and return the address of `symbol`."""
    from traceview.analysis.kernels import elf

    try:
        loaded = elf.load(obj, symbol, external)
    except elf.Unsupported:
        return _load_with_llvm(obj, externals, symbol)
    _PROCESS.objects.append(loaded)
    return loaded.address


def external(name: str) -> int:
    """The address of a symbol an object calls: the C library's, or the runtime's stub."""
    if name == STUB:
        address = ctypes.cast(_NO_RUNTIME, ctypes.c_void_p).value
    else:
        try:
            address = ctypes.cast(getattr(_libc(), name), ctypes.c_void_p).value
        except AttributeError:
            address = None
    if not address:
        raise NativeError(f"a cached kernel object calls {name}, not in the C library")
    return address


def _libc() -> ctypes.CDLL:
    if _PROCESS.libc is None:
        _PROCESS.libc = ctypes.CDLL(None)
    return _PROCESS.libc


def _load_with_llvm(obj: bytes, externals: list[str], symbol: str) -> int:
    """Add the object to the process's llvmlite engine and return the address of `symbol`."""
    llvm = llvm_binding()
    if _PROCESS.engine is None:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        machine = llvm.Target.from_default_triple().create_target_machine(jit=True)
        _PROCESS.engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), machine)
    engine = _PROCESS.engine
    for name in externals:
        llvm.add_symbol(name, external(name))
    ref = llvm.ObjectFileRef.from_data(obj)
    _PROCESS.objects.append(ref)
    engine.add_object_file(ref)
    engine.finalize_object()
    address = int(engine.get_function_address(symbol))
    if not address:
        raise NativeError(f"no {symbol} in a cached kernel object")
    return address


def _no_runtime(_: int) -> None:
    """The numba runtime's destructor call: never reached, as no array here owns memory."""
    sys.stderr.write("traceview: a native kernel freed memory it does not own\n")
    os.abort()


_NO_RUNTIME = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(_no_runtime)


__all__ = ["Native", "NativeError"]
