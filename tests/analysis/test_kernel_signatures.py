"""The compiled kernels' shape (issue 19): every numba kernel in `analysis.kernels` takes at most
8 parameters (grouped arguments: kernels/columns.py), and the call flags and the kernels' hash
slot are each defined once in the package (the test oracle's own copy aside)."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from collections import Counter
from pathlib import Path

import traceview
import traceview.analysis.kernels as kernels_package

MAX_PARAMETERS = 8
SRC = Path(traceview.__file__).parent
FLAGS = {"RECURSIVE": 1, "SYNTH_ENTRY": 2, "OPEN": 4, "UNROLL": 8, "FORCED_EXIT": 16}


def dispatchers() -> dict[str, inspect.Signature]:
    """Every numba dispatcher defined in a module of analysis.kernels, by qualified name."""
    found = {}
    for info in pkgutil.iter_modules(kernels_package.__path__):
        module = importlib.import_module(f"{kernels_package.__name__}.{info.name}")
        for name, value in vars(module).items():
            py_func = getattr(value, "py_func", None)  # numba's Dispatcher keeps the source
            if py_func is not None and py_func.__module__ == module.__name__:
                found[f"{info.name}.{name}"] = inspect.signature(py_func)
    return found


def test_no_kernel_takes_more_than_eight_parameters() -> None:
    found = dispatchers()
    assert len(found) >= 30, sorted(found)  # the search sees the kernels
    wide = {name: len(sig.parameters) for name, sig in found.items()}
    wide = {name: n for name, n in wide.items() if n > MAX_PARAMETERS}
    assert not wide, f"kernels over {MAX_PARAMETERS} parameters: {wide}"


def module_assignments(path: Path) -> list[tuple[str, object]]:
    """The (name, literal value) pairs a module binds at its top level (tuples unpacked)."""
    out: list[tuple[str, object]] = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        for target in targets:
            assert isinstance(node, ast.Assign | ast.AnnAssign)
            value = node.value
            names = target.elts if isinstance(target, ast.Tuple) else [target]
            values = value.elts if isinstance(value, ast.Tuple) else [value]
            for n, v in zip(names, values, strict=False):
                if isinstance(n, ast.Name) and isinstance(v, ast.Constant):
                    out.append((n.id, v.value))
    return out


def test_call_flags_are_defined_once() -> None:
    """A flag's name (with or without a leading underscore) bound to its bit, anywhere in the
    package (synth's UNROLL = 2 is an action code, not the flag)."""
    where: Counter[str] = Counter()
    for path in sorted(SRC.rglob("*.py")):
        for name, value in module_assignments(path):
            flag = name.lstrip("_")
            if FLAGS.get(flag) == value:
                where[flag] += 1
    assert where == dict.fromkeys(FLAGS, 1)


def test_the_hash_slot_is_defined_once() -> None:
    """One probing function and one hashing constant among the engine's modules."""
    slots, mixes = [], []
    for path in sorted((SRC / "analysis").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef) and node.name.lstrip("_") == "slot":
                slots.append(path.name)
        if "7046029254386353131" in text or "9e3779b97f4a7c15" in text.lower():
            mixes.append(path.name)
    assert slots == ["hashing.py"]
    assert mixes == ["hashing.py"]
