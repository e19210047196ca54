"""A process that only loads cached kernels does not import numba's compiler registries
(`kernels/jit.py`: some sixty modules, ~0.15 s of every command's start), and one that then
compiles a kernel still can. Each case runs in a fresh interpreter on its own numba cache."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[2] / "src")

# a cached kernel's load and call; then, in the second run, a compilation of a new kernel
PROBE = """
import sys
import numpy as np
from traceview.analysis.kernels import hashing
from traceview.analysis.kernels.columns import Table
table = Table(np.full(4, -1), np.array([[5, 1], [0, 0]]), np.zeros((2, 3), dtype=np.int64))
out = hashing.grown(table, 1)  # allocates: numba's runtime loaded with the kernel
print(len(out.keys), int(out.keys[0, 0]), "numba.np.linalg" in sys.modules)
if sys.argv[1] == "compile":
    from traceview.analysis.kernels.jit import njit

    def total(a):
        s = 0.0
        for v in a:
            s += v
        return np.sqrt(s)

    print(njit(total)(np.arange(5, dtype=np.float64)))
"""


def run(cache: Path, mode: str) -> list[str]:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (SRC, env.get("PYTHONPATH")) if p)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, mode], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_a_cached_kernel_loads_without_the_compiler_registries(tmp_path: Path) -> None:
    first = run(tmp_path, "load")  # compiles into the empty cache: the registries load
    assert first == ["4", "5", "True"]
    again = run(tmp_path, "load")  # loads from the cache: they stay unloaded
    assert again == ["4", "5", "False"]


def test_a_compilation_after_a_cached_load_still_works(tmp_path: Path) -> None:
    run(tmp_path, "load")
    out = run(tmp_path, "compile")
    assert out[:3] == ["4", "5", "False"]
    assert float(out[3]) == 10.0**0.5


def test_a_stale_index_naming_a_class_gone_since_is_a_cache_miss(tmp_path: Path) -> None:
    """numba unpickles a kernel's cache index before checking it is fresh: an index left by
    an older traceview whose kernel types name a class since renamed or removed (an upgrade
    over a cache kept in `__pycache__` or NUMBA_CACHE_DIR) made every use of the kernel fail
    with AttributeError instead of compiling it again."""
    import pickle
    import types

    run(tmp_path, "load")
    (index,) = tmp_path.rglob("hashing.grown-*.nbi")
    with index.open("rb") as f:
        version = pickle.load(f)
    gone = types.ModuleType("traceview_gone")
    gone_class = type("Gone", (), {"__module__": "traceview_gone"})
    vars(gone)["Gone"] = gone_class  # pickled by reference as traceview_gone.Gone
    sys.modules["traceview_gone"] = gone
    try:
        stale = pickle.dumps(("old stamp", {gone_class(): "grown-0.nbc"}))
    finally:
        del sys.modules["traceview_gone"]
    index.write_bytes(pickle.dumps(version) + stale)
    assert run(tmp_path, "load") == ["4", "5", "True"]  # compiled again
    assert run(tmp_path, "load") == ["4", "5", "False"]  # and its new index loads
