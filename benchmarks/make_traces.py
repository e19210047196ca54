"""Generate the large benchmark traces into benchmarks/out/ (git-ignored) and time the writer.

    python benchmarks/make_traces.py [--records 1000000 10000000] [--variants regular streaming]
                                     [--threads 24] [--seed 0] [--force] [--demo]
    python benchmarks/make_traces.py --shapes even dominant many sampled --records 10000000

The shapes every speed target is checked on (`SHAPES`, `shape_path`): `even` (24 threads of
similar size, the generator's usual trace), `dominant` (12 threads, the main thread holding 45 %
of the records, about 3,000 methods, stacks 20 deep on average: the shape of a real app
trace), `many` (200 threads, few records each) and `sampled` (a sampling profiler's records).
All but `sampled` are balanced, so Debian's dmtracedump reads them; one file per shape and size
serves every benchmark (`out/shape-<name>-<records>.trace`).

Each trace is `traceview.synth.generate(records, threads, seed)` (v3 dual clock, ART style)
written as every variant asked for, to `out/gen-<records>-<variant>.trace` (split pairs as
`.key` + `.data`). Prints the machine, then per size the generation time and per variant the
write time, file size and write speed. Other benchmarks call `trace_path()` to get (and make
on first use) the file they need. `--demo` regenerates src/traceview/data/demo.trace.gz.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import OUT, machine, mib
from traceview.model import Trace
from traceview.synth import generate
from traceview.synth.generate import make_demo
from traceview.writer import split_paths, write

DEMO = Path(__file__).resolve().parents[1] / "src" / "traceview" / "data" / "demo.trace.gz"
SHAPES: dict[str, dict[str, Any]] = {
    "even": {"threads": 24, "balanced": True},
    "dominant": {"threads": 12, "balanced": True, "main_share": 0.45, "methods": 3000},
    "many": {"threads": 200, "balanced": True},
    "sampled": {"threads": 24, "sampled": True},
}
SAMPLED_BASE = 10_000_000  # records: a bigger sampled trace repeats this one (`repeated`)


def shape_path(shape: str, records: int) -> Path:
    """The cached trace of `shape` (a key of `SHAPES`) with `records` records, regular v3 dual;
    generated on first use in a child process (a forked child's ru_maxrss starts at its
    parent's RSS, so the measuring process stays small)."""
    path = OUT / f"shape-{shape}-{records}.trace"
    if not path.exists() and shape == "sampled" and records > SAMPLED_BASE:
        repeated(shape_path(shape, SAMPLED_BASE), records, path)
    if not path.exists():
        OUT.mkdir(parents=True, exist_ok=True)
        code = (
            "import sys, json; from traceview.synth import generate; "
            "from traceview.writer import write; "
            "write(generate(records=int(sys.argv[1]), seed=0, **json.loads(sys.argv[2])), "
            "sys.argv[3] + '.part', variant='regular')"
        )
        args = [str(records), json.dumps(SHAPES[shape]), str(path)]
        subprocess.run([sys.executable, "-c", code, *args], check=True)
        Path(str(path) + ".part").replace(path)
    return path


def repeated(base: Path, records: int, path: Path) -> None:
    """`path`: the records of trace `base` again and again, each copy after the previous on
    every clock, cut at `records` (the generator's sampler takes ~11 s per 1M records, so the
    1 GB sampled trace is its 10M one seven times over)."""
    code = (
        "import sys; import numpy as np; import traceview; from dataclasses import replace; "
        "from traceview.writer import write; "
        "t = traceview.load(sys.argv[1]); n = int(sys.argv[2]); ev = t.events; "
        "k = -(-n // len(ev)); "
        "rep = lambda a: np.tile(a, k)[:n]; "
        "shift = lambda a: (np.tile(a, k) + np.repeat("
        "np.arange(k, dtype=np.int64) * (int(a.max()) + 1), len(a)))[:n]; "
        "ev2 = replace(ev, thread=rep(ev.thread), method=rep(ev.method), "
        "action=rep(ev.action), cpu=None if ev.cpu is None else shift(ev.cpu), "
        "wall=None if ev.wall is None else shift(ev.wall)); "
        "write(replace(t, events=ev2), sys.argv[3] + '.part', variant='regular')"
    )
    subprocess.run([sys.executable, "-c", code, str(base), str(records), str(path)], check=True)
    Path(str(path) + ".part").replace(path)


def trace_path(
    records: int, variant: str = "regular", *, threads: int = 24, seed: int = 0, **options: Any
) -> Path:
    """The cached generated trace of `records` records as `variant`; written if missing.

    `options` go to `generate` (e.g. sampled=True, style="dalvik", order="chunks") and into
    the file name, so each shape is cached separately.
    """
    extra = "".join(f"-{k}={v}" for k, v in sorted(options.items()))
    path = OUT / f"gen-{records}-t{threads}-s{seed}{extra}-{variant}.trace"
    if not _written(path, variant):
        OUT.mkdir(parents=True, exist_ok=True)
        trace = generate(records=records, threads=threads, seed=seed, **options)
        write(trace, path, variant=variant)  # type: ignore[arg-type]
    return path


def _written(path: Path, variant: str) -> bool:
    """Whether `path` (for a split pair: its `.key` half) exists already."""
    return (split_paths(path)[0] if variant == "split" else path).exists()


def _timed_write(trace: Trace, path: Path, variant: str) -> tuple[float, int]:
    start = time.perf_counter()
    files = write(trace, path, variant=variant)  # type: ignore[arg-type]
    seconds = time.perf_counter() - start
    return seconds, sum(f.stat().st_size for f in files)


def main(argv: list[str]) -> int:
    """Generate and write; print one line per step."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--records", type=int, nargs="+", default=[1_000_000, 10_000_000])
    p.add_argument("--variants", nargs="+", default=["regular", "streaming"])
    p.add_argument("--threads", type=int, default=24)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--force", action="store_true", help="rewrite files that exist")
    p.add_argument("--demo", action="store_true", help="only regenerate the bundled demo trace")
    p.add_argument("--shapes", nargs="+", choices=sorted(SHAPES), help="write these shapes")
    args = p.parse_args(argv)
    if args.shapes:
        print(machine())
        for shape in args.shapes:
            for records in args.records:
                start = time.perf_counter()
                path = shape_path(shape, records)
                took = time.perf_counter() - start
                size = mib(path.stat().st_size)
                print(f"{shape:9s} {records:>11,} records: {size:>9}  {took:6.1f} s  {path.name}")
        return 0
    if args.demo:
        path = make_demo(DEMO)
        print(f"wrote {path} ({path.stat().st_size / 1e6:.2f} MB)")
        return 0
    OUT.mkdir(parents=True, exist_ok=True)
    print(machine())
    for records in args.records:
        start = time.perf_counter()
        trace = generate(records=records, threads=args.threads, seed=args.seed)
        gen = time.perf_counter() - start
        rate = records / gen / 1e6
        what = f"{records:>11,} records, {args.threads} threads"
        print(f"generate {what}: {gen:6.2f} s ({rate:.1f} M records/s)")
        for variant in args.variants:
            path = OUT / f"gen-{records}-{variant}.trace"
            if _written(path, variant) and not args.force:
                print(f"  {variant:<20} exists: {path.name} (use --force to rewrite)")
                continue
            seconds, size = _timed_write(trace, path, variant)
            speed = size / seconds / 1024 / 1024
            print(
                f"  {variant:<20} {seconds:6.2f} s  {mib(size):>9}  {speed:6.0f} MiB/s  {path.name}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
