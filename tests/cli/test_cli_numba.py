"""numba (about 0.2 s to import) is loaded only by the work that compiles or runs kernels
through numba's dispatcher: the event exports (chrome, speedscope) and the merged trees
(folded, svg, pprof, `tree`, the viewer's flame graphs). The profile's commands (`info`,
`stats`, `-r`, `dmtracedump`: the direct profile) run its kernels from their machine code
(analysis/kernels/native.py): numba only builds an object once, and a fresh install builds
none (the install ships them: setup.py); commands that analyse nothing start without it.
Each case runs the CLI in a fresh interpreter and reports whether numba was imported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from traceview.synth import generate
from traceview.writer import write

PROBE = (
    "import sys\n"
    "from traceview.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "print(code, 'numba' in sys.modules)\n"
)


@pytest.fixture(scope="module")
def trace_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("numba") / "t.trace"
    write(generate(records=2000, threads=2, seed=5), str(path))
    return path


SHIPPING = (
    "import os, pathlib\n"
    "import traceview.analysis.kernels.native as native\n"
    "native.SHIPPED = pathlib.Path(os.environ['SHIPPED'])\n"
)


def imports_numba(*argv: str, cache: Path | None = None, shipped: Path | None = None) -> bool:
    """Whether `traceview *argv` imported numba, run with numba's cache in `cache` and the
    native objects an install ships in `shipped`."""
    env = dict(os.environ, **({"NUMBA_CACHE_DIR": str(cache)} if cache else {}))
    src = str(Path(__file__).resolve().parents[2] / "src")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    probe = PROBE
    if shipped is not None:
        env["SHIPPED"], probe = str(shipped), SHIPPING + PROBE
    run = subprocess.run(
        [sys.executable, "-c", probe, *argv], capture_output=True, text=True, env=env, check=False
    )
    code, loaded = run.stdout.split()[-2:]
    assert code == "0", run.stderr
    return loaded == "True"


@pytest.mark.parametrize(
    "argv",
    [
        ["--version"],
        ["convert", "{trace}", "{out}.trace", "--to", "streaming"],
        ["info", "{trace}"],
        ["stats", "{trace}"],
        ["-r", "{trace}"],
        ["dmtracedump", "{trace}"],
    ],
)
def test_commands_without_a_kernel_do_not_import_numba(
    trace_path: Path, tmp_path: Path, argv: list[str]
) -> None:
    args = [a.format(trace=trace_path, out=tmp_path / "out") for a in argv]
    imports_numba(*args)  # (builds the native objects when none are cached yet: a fresh tree)
    assert not imports_numba(*args)


@pytest.fixture(scope="module")
def big_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from traceview.analysis.small import SMALL

    path = tmp_path_factory.mktemp("numba") / "big.trace"
    write(generate(records=SMALL + 20_000, threads=3, seed=5), str(path))
    return path


@pytest.mark.parametrize("command", ["info", "stats", "-r", "dmtracedump"])
def test_the_profile_commands_run_the_compiled_direct_profile_past_small_without_numba(
    big_path: Path, command: str, tmp_path: Path
) -> None:
    assert imports_numba(command, str(big_path), cache=tmp_path)  # the first time: built
    assert not imports_numba(command, str(big_path), cache=tmp_path)


@pytest.mark.parametrize("suffix", ["chrome.json", "folded", "pb.gz"])
def test_the_event_exports_and_the_trees_do(trace_path: Path, tmp_path: Path, suffix: str) -> None:
    assert imports_numba("export", str(trace_path), "-o", str(tmp_path / f"t.{suffix}"))


def test_the_event_exports_work_without_a_writable_numba_cache(
    trace_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No cache directory numba can write (here: only the user-provided locator, pointing
    under a file): the kernels compile in the process instead of refusing to run."""
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("NUMBA_CACHE_LOCATOR_CLASSES", "UserProvidedCacheLocator")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(blocker / "cache"))
    out = tmp_path / "t.speedscope.json"
    assert imports_numba("export", str(trace_path), "-o", str(out))
    assert out.read_bytes().startswith(b'{"$schema"')


def test_reading_a_simpleperf_recording_needs_no_numba_once_built(tmp_path: Path) -> None:
    """Its record walk runs as native code (kernels/framing.py): built once, then loaded
    without numba (its status codes once came from the kernel's module, importing numba)."""
    from support.simpleperf_bytes import big

    path = tmp_path / "cpu.trace"
    path.write_bytes(big(200, threads=2, stacks=20))
    assert imports_numba("info", str(path), cache=tmp_path)  # the first time: built
    assert not imports_numba("info", str(path), cache=tmp_path)


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The native objects an install ships: those in the wheel `pip` builds from this tree
    (setup.py builds them on the machine it installs on)."""
    import zipfile

    root = Path(__file__).resolve().parents[2]
    out, dest = tmp_path_factory.mktemp("wheel"), tmp_path_factory.mktemp("shipped")
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(root)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    (wheel,) = out.glob("traceview-*.whl")
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if name.startswith("traceview/analysis/kernels/native/") and name.endswith(".o"):
                (dest / Path(name).name).write_bytes(z.read(name))
    assert len(list(dest.glob("*.o"))) >= 10, done.stderr
    return dest


@pytest.fixture(scope="module")
def many_methods_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A trace past SMALL whose key declares 40,000 methods (4-byte method rows), on 300
    threads (2-byte thread rows), written as V2."""
    from traceview.analysis.small import SMALL
    from traceview.cli.precompile import _declaring

    path = tmp_path_factory.mktemp("numba") / "methods.trace"
    trace = generate(records=SMALL + 20_000, threads=300, seed=6, clock="wall")
    write(_declaring(trace, 40_000), str(path), variant="regular", version=2)
    return path


@pytest.mark.slow
@pytest.mark.parametrize("command", ["info", "stats", "-r", "dmtracedump"])
@pytest.mark.parametrize("which", ["big_path", "many_methods_path"])
def test_a_fresh_install_builds_nothing_for_the_profile_commands(
    shipped: Path, which: str, command: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The objects the install ships cover the types real traces give the commands'
    kernels: with numba's cache empty, as after a fresh install, no command builds one."""
    path = request.getfixturevalue(which)
    assert not imports_numba(command, str(path), cache=tmp_path, shipped=shipped)
    assert not list(tmp_path.glob("traceview/native/*.o"))


@pytest.mark.slow
def test_a_fresh_install_reads_a_simpleperf_recording_without_building(
    shipped: Path, tmp_path: Path
) -> None:
    from support.simpleperf_bytes import big

    path = tmp_path / "cpu.trace"
    path.write_bytes(big(200, threads=2, stacks=20))
    assert not imports_numba("info", str(path), cache=tmp_path / "cache", shipped=shipped)


FIRST_SCREEN = """
import sys
from traceview.analysis.session import Session
from traceview.cli.demo import demo_trace
from traceview.readers import load
from traceview.viewer import answers

s = Session(load(demo_trace()))
answers.trace_answer(s)
answers.profile_answer(s, s.query())
answers.frames_answer(s, 16)
for t in range(len(s.trace.threads)):
    answers.timeline_answer(s, t, 0, 0)
print(0, "numba" in sys.modules)
"""


@pytest.mark.slow
def test_a_fresh_install_draws_the_demos_first_screen_without_building(
    shipped: Path, tmp_path: Path
) -> None:
    """The demo's first screen (its call table, profile, frames and tiles) runs native
    kernels only, all shipped: nothing is compiled on a fresh install's first run."""
    src = str(Path(__file__).resolve().parents[2] / "src")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), SHIPPED=str(shipped))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    cmd = [sys.executable, "-c", SHIPPING + FIRST_SCREEN]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "False"]
    assert not list(tmp_path.glob("traceview/native/*.o"))
