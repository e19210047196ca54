"""Export benchmark: each `traceview export` format on a large generated trace, against the
time to compute the trace's profile.

    python benchmarks/bench_export.py [--records 10000000] [--formats folded svg ...] [--rounds 1]

The trace is `out/gen-<records>-regular.trace` (harness: `synth.generate(records, 8 threads)`,
cached). It is loaded once; every measurement starts from a fresh `Session` on it, so each
number includes whatever the format needs the engine to build. Prints, per size: the profile
(`session.profile`, the direct path `traceview stats` uses), the call table (`session.calls`,
which every export needs), then per format the whole export from a fresh session (engine +
writing) and the writing alone (session warmed with the call table), output to /dev/null
(Parquet: to a temporary directory), and the output size. The formats written by compiled
kernels (chrome, speedscope) also pay, once per process, numba's import and the kernel's
first call: measured apart in fresh interpreters, with numba's cache warm and with an empty
one (a first run: the kernels compile).
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import OUT, machine, mib
from traceview.analysis import Session
from traceview.analysis.view import View
from traceview.exporters import get
from traceview.model import Trace

FORMATS = ("folded", "svg", "chrome", "speedscope", "pprof", "perfetto", "parquet")
# the formats whose writing is a compiled kernel (jsonbytes.py; perfetto: packets.py)
KERNEL_FORMATS = ("chrome", "speedscope", "perfetto")

# in a fresh interpreter: numba's import and the kernel's first call (numpy already loaded)
FIRST_CALL = """
import time
import numpy as np
import traceview.analysis.workers
t = time.perf_counter()
from traceview.analysis.kernels.jsonbytes import INT, Template
Template([b"", b""], [INT]).format(np.zeros((1, 1), dtype=np.int64))
print(time.perf_counter() - t)
"""


class Counter(io.RawIOBase):
    """A write-only sink counting bytes (text exporters get it through a TextIOWrapper)."""

    def __init__(self) -> None:
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, b: object) -> int:
        n = len(b)  # type: ignore[arg-type]
        self.size += n
        return n


def trace_of(records: int) -> Trace:
    from traceview.readers import load

    path = OUT / f"gen-{records}-regular.trace"
    if not path.exists():
        from traceview.synth import generate
        from traceview.writer import write

        OUT.mkdir(parents=True, exist_ok=True)
        write(generate(records=records, threads=8, seed=0), str(path))
    return load(str(path))


def export(new: Callable[[], Session], name: str) -> tuple[float, int]:
    """Write `name` for the default selection of the session `new()` makes: (seconds, bytes
    written). A directory's seconds are the export's alone: not the walk that sizes it nor
    its removal (tens of ms for Parquet's parts at 2M records: a stream format pays none)."""
    fmt = get(name)
    if fmt.subject == "directory":
        with tempfile.TemporaryDirectory() as tmp:
            t = time.perf_counter()
            session = new()
            fmt.export(View(session, session.query()), tmp)
            took = time.perf_counter() - t
            return took, sum(p.stat().st_size for p in Path(tmp).rglob("*") if p.is_file())
    sink = Counter()
    t = time.perf_counter()
    session = new()
    view = View(session, session.query())
    if fmt.binary:
        fmt.export(view, sink)
    else:
        text = io.TextIOWrapper(io.BufferedWriter(sink, 1 << 20), encoding="utf-8")
        fmt.export(view, text)
        text.flush()
    return time.perf_counter() - t, sink.size


def timed(fn: Callable[[], object], rounds: int) -> tuple[float, object]:
    best = float("inf")
    out: object = None
    for _ in range(rounds):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def timed_export(fn: Callable[[], tuple[float, int]], rounds: int) -> tuple[float, int]:
    """The best of `rounds` exports' own seconds, and the bytes written."""
    runs = [fn() for _ in range(rounds)]
    return min(t for t, _ in runs), runs[-1][1]


def bench(trace: Trace, records: int, formats: list[str], rounds: int) -> None:
    """Print the profile, call table and export times of one trace."""
    prof, _ = timed(lambda: Session(trace).profile(Session(trace).query()), rounds)
    calls, _ = timed(lambda: len(Session(trace).calls), rounds)
    warm = Session(trace)
    n_calls = len(warm.calls)
    print(f"\n{records:,} records, {n_calls:,} calls")
    print(f"  profile (direct)        {prof:7.2f} s")
    print(f"  call table              {calls:7.2f} s")
    print(f"  {'format':<12} {'fresh':>9} {'write only':>11} {'output':>12}")
    sizes: dict[str, int] = {}
    for name in formats:
        t_fresh, _ = timed_export(lambda name=name: export(lambda: Session(trace), name), rounds)
        t_write, size = timed_export(
            lambda name=name: export(lambda: Session(trace, warm.calls), name), rounds
        )
        sizes[name] = size
        print(f"  {name:<12} {t_fresh:8.2f}s {t_write:10.2f}s {mib(float(size)):>12}", flush=True)
    if "perfetto" in sizes and "chrome" in sizes:
        ratio = sizes["perfetto"] / sizes["chrome"]
        print(f"  perfetto / chrome bytes  {ratio:.2f}  ({sizes['perfetto'] / n_calls:.1f} B/call)")


def first_call(cache: str) -> float:
    """Seconds to import numba and call the kernel once, in a fresh interpreter whose numba
    cache is the directory `cache`."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    run = subprocess.run(
        [sys.executable, "-c", FIRST_CALL], capture_output=True, text=True, env=env, check=True
    )
    return float(run.stdout.split()[-1])


def bench_first_call(rounds: int) -> None:
    """Print numba's import + first kernel call, cold (empty cache) and warm."""
    cold = warm = float("inf")
    for _ in range(rounds):
        with tempfile.TemporaryDirectory() as cache:
            cold = min(cold, first_call(cache))
            warm = min(warm, first_call(cache))
    print(f"  numba import + first kernel call (once per process, {', '.join(KERNEL_FORMATS)}):")
    print(f"    cache warm              {warm:7.2f} s")
    print(f"    cache cold (compiles)   {cold:7.2f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, nargs="+", default=[10_000_000])
    ap.add_argument("--formats", nargs="+", default=list(FORMATS))
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    print(machine())
    if any(f in KERNEL_FORMATS for f in args.formats):
        bench_first_call(args.rounds)
    for records in args.records:
        bench(trace_of(records), records, args.formats, args.rounds)


if __name__ == "__main__":
    main()
