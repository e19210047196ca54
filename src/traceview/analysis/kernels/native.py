"""Kernels run from their machine code without importing numba: what lets `traceview -r`,
`dmtracedump`, `stats` and `info` start in a fraction of the time on a large trace.

Through numba's dispatcher, a process pays ~0.2 s to import numba and 10–50 ms to load each
cached kernel (numba rebuilds its typing and runtime first) before any record is counted:
45–65 % of Debian's whole dmtracedump run at 10M records (benchmarks/RESULTS.md). Here a
kernel's machine code is kept as an object file and loaded by llvmlite alone (~0.03 s once,
then ~1 ms a kernel), then called through ctypes, which lets go of the GIL meanwhile.

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
another), keyed by the kernels' sources, numba's and llvmlite's installs and the host CPU.
The build refuses an object that calls anything outside the C library
(tests/analysis/test_native.py).
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import importlib
import importlib.util
import json
import os
import struct
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

_HERE = Path(__file__).parent
_LOCK = threading.RLock()
_OK = (0, -2)  # numba's return codes: done, done returning None
_STUB = "traceview_no_runtime"  # what the numba runtime's destructor call is renamed to


class NativeError(RuntimeError):
    """A kernel that cannot run as native code (it allocates, or calls outside libc)."""


class _NotHere(NativeError):
    """This platform's objects are not ones `_undefined` reads (not ELF64 little-endian):
    its kernels run through numba's dispatcher instead."""


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
        if results < 0:  # (`_NotHere`: numba's dispatcher)
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
        folder = _cache_dir()
        stamp = _stamp() if "." not in module else _digest(_stamp() + _source_of(module))
        path = folder / f"{module}.{name}-{_digest(key)}-{stamp}.o" if folder else None
        try:
            meta, obj = _parse(path.read_bytes() if path else b"")
        except (OSError, ValueError):  # none yet, or damaged: built (again)
            try:
                data = _build(module, name, key, args)
            except _NotHere:
                _PROCESS.entries[module, name, key] = _kernel(module, name), -1, False
                return _PROCESS.entries[module, name, key]
            if path:
                _store(path, data)
            meta, obj = _parse(data)
        address = _load(obj, meta["externals"], meta["symbol"])
        fn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
        entry = fn(address), int(meta["results"]), bool(meta["tuple"])
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


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()[:16]


class _Process:
    """This process's machine-code state (no trace data): the stamp of what objects depend
    on, llvmlite's engine and the objects its code lives in."""

    def __init__(self) -> None:
        self.stamp = ""
        self.engine: Any = None
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
        for package in ("numba", "llvmlite"):
            spec = importlib.util.find_spec(package)
            origin = spec.origin if spec and spec.origin else ""
            st = os.stat(origin) if origin else None
            h.update(f"{package}:{origin}:{st and (st.st_size, st.st_mtime_ns)}".encode())
        llvm = _llvm()
        h.update(
            llvm.get_host_cpu_name().encode() + llvm.get_host_cpu_features().flatten().encode()
        )
        _PROCESS.stamp = h.hexdigest()[:16]
    return _PROCESS.stamp


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


# loading: llvmlite alone


def _llvm() -> Any:
    return importlib.import_module("llvmlite.binding")


def _numba(module: str = "") -> Any:
    """numba, or one of its modules (untyped: only `_build` uses them)."""
    return importlib.import_module(f"numba{module}")


def _load(obj: bytes, externals: list[str], symbol: str) -> int:
    """Add the object to the process's engine and return the address of `symbol`."""
    llvm = _llvm()
    if _PROCESS.engine is None:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        machine = llvm.Target.from_default_triple().create_target_machine(jit=True)
        _PROCESS.engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), machine)
    engine = _PROCESS.engine
    libc = ctypes.CDLL(None)
    for name in externals:
        if name == _STUB:
            address = ctypes.cast(_NO_RUNTIME, ctypes.c_void_p).value
        else:
            address = ctypes.cast(getattr(libc, name), ctypes.c_void_p).value
        llvm.add_symbol(name, address)
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


# building: numba, once per typing and machine


def _build(module: str, name: str, key: str, args: tuple[Any, ...]) -> bytes:
    """The cache file of `module.name` for `args`' typing: a JSON line (the wrapper's symbol,
    its result count, whether a tuple, the C symbols it needs) then the object."""
    numba, types = _numba(), _numba(".core.types")
    kernel = _kernel(module, name)
    typing = tuple(numba.typeof(a) for a in args)
    kernel.compile(typing)
    returns = kernel.overloads[typing].signature.return_type
    if returns == types.none:
        results, many = 0, False
    elif isinstance(returns, types.BaseTuple):
        results, many = len(returns), True
    else:
        results, many = 1, False
    if not all(isinstance(t, (types.Integer, types.Boolean)) for t in _scalars(returns)):
        raise NativeError(f"{module}.{name} returns {returns}: a native kernel returns ints")
    env: dict[str, Any] = {"K": kernel}
    at = [0]
    call = f"K({', '.join(_source(a, t, env, at) for a, t in zip(args, typing, strict=True))})"
    n = at[0]
    if not results:
        body = f"    {call}"
    elif not many:
        body = f"    p[{n}] = {call}"
    else:
        body = f"    r = {call}\n" + "\n".join(f"    p[{n + i}] = r[{i}]" for i in range(results))
    code = f"def wrapper(p):\n{body}\n"
    exec(
        compile(code, f"<native {module}.{name}>", "exec"), env
    )  # (source made here, from the arguments' types)
    wrapper = numba.njit(
        types.void(types.CPointer(types.int64)),
        no_cpython_wrapper=True,
        no_cfunc_wrapper=True,
        nogil=True,
    )(env["wrapper"])
    result = wrapper.overloads[(types.CPointer(types.int64),)]
    library = result.library
    library._ensure_finalized()
    llvm = _llvm()
    final = llvm.parse_assembly(str(library._final_module))
    entry, symbol = result.fndesc.llvm_func_name, f"traceview.{module}.{name}.{_digest(key)}"
    for fn in final.functions:  # one symbol seen from outside, named for this typing alone
        if fn.is_declaration:
            if fn.name == "NRT_MemInfo_call_dtor":
                fn.name = _STUB
        elif fn.name == entry:
            fn.name = symbol
        else:
            fn.linkage = "internal"
    for var in final.global_variables:
        if not var.is_declaration:
            var.linkage = "internal"
    obj = library._codegen._tm.emit_object(final)
    externals = _undefined(obj)
    libc = ctypes.CDLL(None)
    for sym in externals:
        if sym != _STUB and not hasattr(libc, sym):
            raise NativeError(f"{module}.{name} calls {sym}: not native (does it allocate?)")
    meta = {
        "sha1": hashlib.sha1(bytes(obj), usedforsecurity=False).hexdigest(),
        "symbol": symbol,
        "results": results,
        "tuple": many,
        "externals": externals,
    }
    return json.dumps(meta).encode() + b"\n" + bytes(obj)


def _kernel(module: str, name: str) -> Any:
    """The njit kernel itself (numba's dispatcher)."""
    where = module if "." in module else f"traceview.analysis.kernels.{module}"
    return getattr(importlib.import_module(where), name)


def _scalars(t: Any) -> list[Any]:
    types = _numba(".core.types")
    if t == types.none:
        return []
    return list(t) if isinstance(t, types.BaseTuple) else [t]


def _source(x: Any, t: Any, env: dict[str, Any], at: list[int]) -> str:
    """The wrapper's expression rebuilding argument `x` (numba type `t`) from the block `p`,
    its values from `p[at[0]]` on (as `_flatten` wrote them)."""
    if isinstance(x, np.ndarray):
        view = f"V{len(env)}"
        env[view] = _viewer(t)
        i, d = at[0], x.ndim
        at[0] += 1 + 2 * d
        shape = "".join(f"p[{i + 1 + k}], " for k in range(d))
        strides = "".join(f"p[{i + 1 + d + k}], " for k in range(d))
        return f"{view}(p[{i}], ({shape}), ({strides}))"
    if isinstance(x, tuple):
        inner = ", ".join(_source(v, vt, env, at) for v, vt in zip(x, t, strict=True))
        if hasattr(x, "_fields"):
            cls = f"T{len(env)}"
            env[cls] = type(x)
            return f"{cls}({inner})"
        return f"({inner},)"
    at[0] += 1
    return f"(p[{at[0] - 1}] != 0)" if isinstance(x, (bool, np.bool_)) else f"p[{at[0] - 1}]"


def _viewer(array_type: Any) -> Any:
    """An njit intrinsic making an array of `array_type` (numba's) from an address, a shape
    and strides (bytes), owning no memory (as `numba.carray` does, with any strides)."""
    cgutils, types = _numba(".core.cgutils"), _numba(".core.types")
    arrays = _numba(".np.arrayobj")
    nd = array_type.ndim

    def view(typingctx: Any, address: Any, shape: Any, strides: Any) -> Any:
        sig = array_type(
            types.int64, types.UniTuple(types.int64, nd), types.UniTuple(types.int64, nd)
        )

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            ary = arrays.make_array(array_type)(context, builder)
            item = context.get_data_type(array_type.dtype)
            data = builder.inttoptr(args[0], item.as_pointer())
            arrays.populate_array(
                ary,
                data=data,
                shape=cgutils.unpack_tuple(builder, args[1], nd),
                strides=cgutils.unpack_tuple(builder, args[2], nd),
                itemsize=context.get_constant(types.intp, context.get_abi_sizeof(item)),
                meminfo=None,
            )
            return ary._getvalue()

        return sig, codegen

    return _numba(".extending").intrinsic(view)


def _undefined(obj: bytes) -> list[str]:
    """The symbols an ELF64 little-endian object uses but does not define."""
    if obj[:4] != b"\x7fELF" or obj[4] != 2 or obj[5] != 1:
        raise _NotHere("native kernels need ELF64 little-endian objects (Linux x86-64, arm64)")
    (shoff,) = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", obj, shoff + i * shentsize) for i in range(shnum)]
    names: list[str] = []
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind != 2:  # SHT_SYMTAB
            continue
        strtab = sections[link]
        strings = obj[strtab[4] : strtab[4] + strtab[5]]
        for at in range(offset, offset + size, entsize):
            name, _, _, shndx = struct.unpack_from("<IBBH", obj, at)
            if shndx == 0 and name:
                names.append(strings[name : strings.index(b"\0", name)].decode())
    return sorted(set(names))


__all__ = ["Native", "NativeError"]
