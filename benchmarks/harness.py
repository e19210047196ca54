"""Shared benchmark helpers: machine facts, timing a command with its peak RSS, and the
large generated traces every benchmark uses (cached in benchmarks/out/, git-ignored).

Used by the bench_*.py scripts; not part of the test suite.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

OUT = Path(__file__).resolve().parent / "out"


@dataclass(frozen=True)
class Run:
    """One timed command: wall seconds, peak RSS in bytes, exit status, stderr text."""

    seconds: float
    peak_rss: int
    status: int
    stderr: str


def machine() -> str:
    """One line naming the machine: CPU model, cores, memory, Python. Every benchmark starts
    with it, so it also byte-compiles traceview's sources as `pip install` does (`as_installed`)."""
    as_installed()
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 1024 / 1024:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return f"{cpu}, {os.cpu_count()} cores{mem}, Python {platform.python_version()}"


def as_installed() -> None:
    """Write the `.pyc` of every traceview module, as an install does: a checkout run with
    PYTHONDONTWRITEBYTECODE set (as some containers are) otherwise compiles every module from
    source in every process, ~0.1 s of each command's start that no installed copy pays."""
    import compileall

    import traceview

    compileall.compile_dir(Path(traceview.__file__).parent, quiet=1)


def load() -> str:
    """The load average (1, 5, 15 minutes) as text, printed beside every measurement: on a
    shared machine it says how far the absolute times are from a quiet one's."""
    return "load {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def run(cmd: Sequence[str], *, env: dict[str, str] | None = None) -> Run:
    """Run `cmd` with stdout discarded; measure wall time and the child's peak RSS (wait4)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        list(cmd),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Run(seconds, usage.ru_maxrss * 1024, proc.returncode, err.decode(errors="replace"))


def alternate(commands: dict[str, Sequence[str]], rounds: int) -> dict[str, list[Run]]:
    """Run each command once per round, alternating, so machine noise hits all alike."""
    results: dict[str, list[Run]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, cmd in commands.items():
            results[name].append(run(cmd))
    return results


def anchor(trace: Path, rounds: int = 2) -> str:
    """Debian's dmtracedump on `trace` (stdout discarded), `rounds` times: one line with its
    median wall seconds, printed by the benchmarks that time something else (the viewer, the
    first run) so each of their runs carries the speed anchor of the same hour. A gzipped
    trace is unpacked to a temporary file first (dmtracedump reads only plain files)."""
    import gzip
    import shutil
    import tempfile

    dmt = shutil.which("dmtracedump")
    if dmt is None:
        return "anchor: Debian's dmtracedump is not installed (apt-get install dmtracedump)"
    with tempfile.TemporaryDirectory() as tmp:
        path = trace
        if trace.suffix == ".gz":
            path = Path(tmp) / trace.stem
            with gzip.open(trace) as src, path.open("wb") as dst:
                shutil.copyfileobj(src, dst)
        runs = [run([dmt, str(path)]) for _ in range(rounds)]
    ok = [r for r in runs if r.status == 0]
    if not ok:
        return f"anchor: Debian's dmtracedump failed on {trace.name} ({runs[0].status})"
    return (
        f"anchor: Debian's dmtracedump on {trace.name}: {median_seconds(ok):.3f} s wall "
        f"(median of {len(ok)}), {load()}"
    )


def median_seconds(runs: list[Run]) -> float:
    """Median wall time of `runs`."""
    return statistics.median(r.seconds for r in runs)


def mib(n: float) -> str:
    """Bytes as MiB text."""
    return f"{n / 1024 / 1024:.0f} MiB"
