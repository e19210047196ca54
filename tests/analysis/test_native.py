"""Kernels run from their cached machine code without numba (analysis/kernels/native.py): the
same results as numba's dispatcher gives for the same arguments (strided, 2-D, tuples, named
tuples, bools); a kernel that allocates or returns arrays is refused when built; a second
process loads the object without importing numba; no writable cache folder still runs."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from traceview.analysis.kernels.native import Native, NativeError

ROOT = Path(__file__).resolve().parents[2]


def records(n: int, seed: int) -> np.ndarray:
    """V1 dual-clock records (14 bytes, fields unaligned) with a few unknown ids."""
    rng = np.random.default_rng(seed)
    rec = np.zeros(n, dtype=[("tid", "<u2"), ("mid", "<u4"), ("t0", "<u4"), ("t1", "<u4")])
    rec["tid"] = rng.integers(1, 6, n)
    rec["mid"] = (rng.integers(0, 40, n) << 2) | rng.integers(0, 4, n)
    rec["t0"] = np.cumsum(rng.integers(0, 3000, n)) & 0xFFFFFFFF
    rec["t1"] = np.cumsum(rng.integers(0, 2000, n)) & 0xFFFFFFFF
    return rec


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_decoding_kernels_run_as_numba_runs_them(seed: int) -> None:
    from traceview.analysis.kernels import decode

    rec = records(5000, seed)
    tlut = np.full(8, -1, dtype=np.int32)
    tlut[1:5] = np.arange(4)  # thread id 5 unknown: both stop there
    mlut = np.arange(40, dtype=np.int32)
    keys, rows = np.array([3, 7], dtype=np.uint32), np.array([1, 2], dtype=np.int32)
    run: Callable[..., Any]
    for methods in ((mlut, 0, keys[:0], rows[:0]), (mlut[:0], 0, keys, rows)):
        outs: list[tuple[Any, tuple[npt.NDArray[Any], ...]]] = []
        for run in (decode.ids, Native("decode", "ids")):
            out = (np.zeros(5000, np.uint8), np.zeros(5000, np.int32), np.zeros(5000, np.uint8))
            outs.append((run(rec["tid"], rec["mid"], tlut, methods, out), out))
        assert outs[0][0] == outs[1][0]
        for a, b in zip(outs[0][1], outs[1][1], strict=True):
            assert np.array_equal(a, b)
    results: list[tuple[Any, tuple[npt.NDArray[np.int64], ...], npt.NDArray[np.int64]]] = []
    for run in (decode.times, Native("decode", "times")):
        state = (np.full(4, -1, np.int64), np.zeros(4, np.int64), np.zeros(4, np.int64))
        times = np.zeros(5000, dtype=np.int64)
        results.append((run(rec["t0"], rec["tid"], tlut, state, times), state, times))
    assert results[0][0] == results[1][0]
    for a, b in zip((*results[0][1], results[0][2]), (*results[1][1], results[1][2]), strict=True):
        assert np.array_equal(a, b)


def test_two_dimensional_arrays_and_results() -> None:
    from traceview.analysis.kernels import pairing

    rng = np.random.default_rng(4)
    thread = rng.integers(0, 3, 2000).astype(np.int8)
    action = rng.integers(0, 2, 2000).astype(np.int8)
    method = rng.integers(0, 9, 2000).astype(np.int32)
    found = []
    for run in (pairing.count_more, Native("pairing", "count_more")):
        out = np.zeros((3, 6), dtype=np.int64)
        lows = np.zeros((50, 2), dtype=np.int64)
        found.append((run((thread, action, method), 7, out, lows), out, lows))
    assert found[0][0] == found[1][0] > 0
    assert np.array_equal(found[0][1], found[1][1])
    assert np.array_equal(found[0][2], found[1][2])


def test_kernels_that_allocate_or_return_arrays_are_refused() -> None:
    from traceview.analysis.kernels.columns import Table

    table = Table(np.full(4, -1), np.zeros((2, 2), np.int64), np.zeros((2, 3), np.int64))
    with pytest.raises(NativeError, match="returns"):
        Native("hashing", "grown")(table, 0)
    with pytest.raises(NativeError, match="allocate"):
        Native("tests.support.native_kernels", "allocating")(5)
    assert Native("tests.support.native_kernels", "summing")(np.arange(5, dtype=np.int64)) == 10


def test_where_objects_are_not_elf_the_kernels_run_through_numba(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from traceview.analysis.kernels import native, nativebuild

    undefined = nativebuild.undefined

    def not_elf(obj: bytes) -> list[str]:
        return undefined(b"\xcf\xfa\xed\xfe" + obj[4:])  # a Mach-O header

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(nativebuild, "undefined", not_elf)
    monkeypatch.setattr(native, "_PROCESS", native._Process())
    a = np.arange(100, dtype=np.int64)
    assert Native("tests.support.native_kernels", "summing")(a) == 4950
    assert not list(tmp_path.glob("traceview/native/*.o"))


def test_off_linux_nothing_is_built(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """macOS and Windows (no ELF objects): the kernels run through numba's dispatcher at
    once, not after a build that each process would pay for again."""
    from traceview.analysis.kernels import native, nativebuild

    def no_build(*_: object) -> bytes:
        raise AssertionError("built")

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(native, "_ELF64", False)
    monkeypatch.setattr(nativebuild, "build", no_build)
    monkeypatch.setattr(native, "_PROCESS", native._Process())
    a = np.arange(100, dtype=np.int64)
    assert Native("tests.support.native_kernels", "summing")(a) == 4950


PROBE = """
import sys
import numpy as np
from traceview.analysis.kernels.native import Native
for name in sys.argv[1:]:
    print(Native("tests.support.native_kernels", name)(np.arange(100, dtype=np.int64)))
print("numba" in sys.modules)
"""


def probe(env: dict[str, str], *kernels: str, prelude: str = "", after: str = "") -> list[str]:
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT)])
    argv = [sys.executable, "-c", prelude + PROBE + after, *(kernels or ["summing"])]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_a_cached_object_runs_without_importing_numba(tmp_path: Path) -> None:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    assert probe(dict(env)) == ["4950", "True"]  # built: numba compiled it
    assert len(list(tmp_path.glob("traceview/native/*.o"))) == 1
    assert probe(dict(env)) == ["4950", "False"]  # loaded without numba


def test_a_cached_object_is_loaded_without_llvmlite(tmp_path: Path) -> None:
    """Importing llvmlite and making its engine took 35–46 ms of a `traceview -r` run
    (kernels/elf.py maps the object itself)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    probe(dict(env))
    after = 'print("llvmlite" in sys.modules)'
    assert probe(dict(env), "summing", "largest", after=after) == ["4950", "99", "True", "True"]
    assert probe(dict(env), "summing", "largest", after=after) == ["4950", "99", "False", "False"]


def cached_object(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> bytes:
    """The object of `summing` on int64 arrays, built into a fresh cache."""
    from traceview.analysis.kernels import native

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(native, "_PROCESS", native._Process())
    assert Native("tests.support.native_kernels", "summing")(np.arange(4)) == 6
    (cached,) = tmp_path.glob("traceview/native/*.o")
    return cached.read_bytes().partition(b"\n")[2]


def test_loaded_code_is_never_writable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from traceview.analysis.kernels import elf, native

    obj = cached_object(tmp_path, monkeypatch)
    (symbol,) = [
        s.name for s in elf.symbols(obj, elf.sections(obj)) if s.name.startswith("traceview.")
    ]
    loaded = elf.load(obj, symbol, native.external)
    for line in Path("/proc/self/maps").read_text().splitlines():
        span, perms = line.split()[:2]
        lo, hi = (int(x, 16) for x in span.split("-"))
        if lo <= loaded.address < hi:
            assert perms.startswith("r-x")
            break
    else:
        pytest.fail("the code's pages are not mapped")


def test_an_object_elf_does_not_handle_is_loaded_by_llvmlite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import struct

    from traceview.analysis.kernels import elf, native

    obj = cached_object(tmp_path, monkeypatch)
    heads = elf.sections(obj)
    rela = next(h for h in heads if h.kind == 4 and h.size)
    odd = bytearray(obj)
    r_info = struct.unpack_from("<Q", odd, rela.offset + 8)[0]
    struct.pack_into("<Q", odd, rela.offset + 8, (r_info & ~0xFFFFFFFF) | 42)  # GOTPCRELX
    with pytest.raises(elf.Unsupported, match="relocation 42"):
        elf.load(bytes(odd), "any", native.external)
    arm = bytearray(obj)
    struct.pack_into("<H", arm, 0x12, 183)  # EM_AARCH64
    with pytest.raises(elf.Unsupported, match="machine"):
        elf.load(bytes(arm), "any", native.external)
    with pytest.raises(elf.Unsupported, match="past the object's end"):
        elf.load(obj[: len(obj) // 2], "any", native.external)  # (its checksum caught it first)
    table = next(h for h in heads if h.kind == 2)  # the symbol table
    named = bytearray(obj)
    struct.pack_into("<I", named, table.offset + table.entsize, 1 << 30)  # a name past its table
    with pytest.raises(elf.Unsupported, match="malformed"):
        elf.load(bytes(named), "any", native.external)

    def unsupported(*_: object) -> elf.Loaded:
        raise elf.Unsupported("as on arm64")

    monkeypatch.setattr(elf, "load", unsupported)
    monkeypatch.setattr(native, "_PROCESS", native._Process())
    assert Native("tests.support.native_kernels", "summing")(np.arange(100)) == 4950
    assert native._PROCESS.engine is not None  # llvmlite's


def test_a_damaged_cache_file_is_built_again(tmp_path: Path) -> None:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    probe(dict(env))
    (cached,) = tmp_path.glob("traceview/native/*.o")
    data = bytearray(cached.read_bytes())
    data[-20:] = bytes(20)  # the object's last bytes lost
    cached.write_bytes(bytes(data))
    assert probe(dict(env)) == ["4950", "True"]  # its checksum fails: built again
    assert probe(dict(env)) == ["4950", "False"]


def test_objects_built_by_different_processes_run_together(tmp_path: Path) -> None:
    """Each object shows one symbol, named for its kernel and typing: the kernels two
    processes built (each compiling its own copy of numba's helpers) load side by side."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    assert probe(dict(env), "summing") == ["4950", "True"]
    assert probe(dict(env), "largest") == ["99", "True"]
    assert probe(dict(env), "largest", "summing") == ["99", "4950", "False"]


def test_no_writable_cache_folder_builds_in_the_process(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(blocker / "cache"))
    env["NUMBA_CACHE_LOCATOR_CLASSES"] = "UserProvidedCacheLocator"
    assert probe(dict(env)) == ["4950", "True"]
    assert probe(dict(env)) == ["4950", "True"]  # nothing kept: built again


SHIPPING = """
import os
from pathlib import Path
import traceview.analysis.kernels.native as native
native.SHIPPED = Path(os.environ["SHIPPED"])
"""


def test_an_object_shipped_with_the_package_is_loaded_before_any_cache(tmp_path: Path) -> None:
    """The install builds objects into `native/` beside the kernels (setup.py): a fresh
    install's first process loads them, builds nothing and imports no numba; a damaged one
    is passed over."""
    built, shipped, fresh = tmp_path / "built", tmp_path / "shipped", tmp_path / "fresh"
    probe(dict(os.environ, NUMBA_CACHE_DIR=str(built)))
    shipped.mkdir()
    for f in built.glob("traceview/native/*.o"):
        f.rename(shipped / f.name)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(fresh), SHIPPED=str(shipped))
    assert probe(dict(env), prelude=SHIPPING) == ["4950", "False"]
    assert not list(fresh.glob("traceview/native/*.o"))  # nothing built, nothing cached
    (obj,) = shipped.glob("*.o")
    obj.write_bytes(obj.read_bytes()[:-20])  # cut short
    assert probe(dict(env), prelude=SHIPPING) == ["4950", "True"]  # built again, and cached
    assert probe(dict(env), prelude=SHIPPING) == ["4950", "False"]


def test_an_object_is_keyed_by_numbas_release_not_where_it_is_installed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The install builds in an environment of its own (pip's build isolation), with the
    same numba and llvmlite releases installed elsewhere: its objects must keep their key."""
    import importlib.util

    import traceview.analysis.kernels.native as native

    def stamp(version_file: bytes | None) -> str:
        real = importlib.util.find_spec

        def elsewhere(name: str, *args: object) -> object:
            spec = real(name)
            if name != "numba" or version_file is None or spec is None or not spec.origin:
                return spec
            copy = tmp_path / f"v{len(version_file)}" / "numba" / "__init__.py"
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(b"")
            (copy.parent / "_version.py").write_bytes(version_file)
            return importlib.util.spec_from_file_location("numba", copy)

        monkeypatch.setattr(importlib.util, "find_spec", elsewhere)
        monkeypatch.setattr(native, "_PROCESS", native._Process())
        return native._stamp()

    spec = importlib.util.find_spec("numba")
    assert spec is not None and spec.origin is not None
    ours = (Path(spec.origin).parent / "_version.py").read_bytes()
    assert stamp(None) == stamp(ours)
    assert stamp(ours + b"# another release\n") != stamp(ours)
