"""Building a kernel's native object (kernels/native.py) with numba: a small njit wrapper
per argument typing rebuilds the arguments from a block of int64s, calls the kernel and writes
its ints after them; the object keeps one symbol seen from outside, named for the kernel and
typing, and may call nothing outside the C library. Imported only on a cache miss.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from typing import Any

import numpy as np

from traceview.analysis.kernels.native import (
    STUB,
    NativeError,
    NotHere,
    digest,
    external,
    llvm_binding,
    module_path,
)


def _numba(module: str = "") -> Any:
    """numba, or one of its modules (untyped here)."""
    return importlib.import_module(f"numba{module}")


def build(module: str, name: str, key: str, args: tuple[Any, ...]) -> bytes:
    """The cache file of `module.name` for `args`' typing: a JSON line (the wrapper's symbol,
    its result count, whether a tuple, the C symbols it needs) then the object."""
    numba, types = _numba(), _numba(".core.types")
    dispatcher = kernel(module, name)
    typing = tuple(numba.typeof(a) for a in args)
    dispatcher.compile(typing)
    returns = dispatcher.overloads[typing].signature.return_type
    if returns == types.none:
        results, many = 0, False
    elif isinstance(returns, types.BaseTuple):
        results, many = len(returns), True
    else:
        results, many = 1, False
    if not all(isinstance(t, (types.Integer, types.Boolean)) for t in _scalars(returns)):
        raise NativeError(f"{module}.{name} returns {returns}: a native kernel returns ints")
    env: dict[str, Any] = {"K": dispatcher}
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
    llvm = llvm_binding()
    final = llvm.parse_assembly(str(library._final_module))
    entry, symbol = result.fndesc.llvm_func_name, f"traceview.{module}.{name}.{digest(key)}"
    for fn in final.functions:  # one symbol seen from outside, named for this typing alone
        if fn.is_declaration:
            if fn.name == "NRT_MemInfo_call_dtor":
                fn.name = STUB
        elif fn.name == entry:
            fn.name = symbol
        else:
            fn.linkage = "internal"
    for var in final.global_variables:
        if not var.is_declaration:
            var.linkage = "internal"
    obj = library._codegen._tm.emit_object(final)
    externals = undefined(obj)
    for sym in externals:  # (the loading's own rule: the C library, or the runtime's stub)
        try:
            external(sym)
        except NativeError as e:
            raise NativeError(f"{module}.{name} calls {sym}: not native (does it allocate?)") from e
    meta = {
        "sha1": hashlib.sha1(bytes(obj), usedforsecurity=False).hexdigest(),
        "symbol": symbol,
        "results": results,
        "tuple": many,
        "externals": externals,
    }
    return json.dumps(meta).encode() + b"\n" + bytes(obj)


def kernel(module: str, name: str) -> Any:
    """The njit kernel itself (numba's dispatcher)."""
    return getattr(importlib.import_module(module_path(module)), name)


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


def undefined(obj: bytes) -> list[str]:
    """The symbols an ELF64 little-endian object uses but does not define."""
    from traceview.analysis.kernels import elf

    try:
        return elf.undefined(obj)
    except elf.Unsupported as e:
        need = "native kernels need ELF64 little-endian objects (Linux x86-64, arm64)"
        raise NotHere(need) from e


__all__ = ["build", "kernel", "undefined"]
