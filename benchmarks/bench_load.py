"""Load time and peak memory of `traceview.load` on large V1 v3 dual-clock regular traces.

    python benchmarks/bench_load.py [--records 1000000 10000000] [--rounds 3]

Writes each size once (cached in benchmarks/out/) in two shapes: "generated" =
`traceview.synth.generate` (realistic nested calls, 16 threads) written as regular v3, and
"interleaved" = a small numpy writer local to this script (32 threads interleaved record by
record at random, 5000 methods with ART's dense ids), the worst case for the per-thread
grouping. Then, per round, loads it in a fresh subprocess
and reports the load time (wall and CPU) measured inside the child and its peak RSS (VmHWM,
read by the child: wait4's ru_maxrss would include the parent's pages copied at fork), next to
the file size and the peak RSS of a child that only imports traceview.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import OUT, machine, mib, run

THREADS = 32
METHODS = 5000
BASE = (
    "import sys, traceview\n"
    "hwm = open('/proc/self/status').read().split('VmHWM:')[1].split()[0]\n"
    "sys.stderr.write(str(int(hwm) * 1024))\n"
)
CHILD = (
    "import resource, sys, time, traceview\n"
    "r0 = resource.getrusage(resource.RUSAGE_SELF)\n"
    "t0 = time.perf_counter()\n"
    "trace = traceview.load(sys.argv[1])\n"
    "dt = time.perf_counter() - t0\n"
    "r1 = resource.getrusage(resource.RUSAGE_SELF)\n"
    "cpu = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime\n"
    "hwm = open('/proc/self/status').read().split('VmHWM:')[1].split()[0]\n"
    "sys.stderr.write(f'{dt:.6f} {cpu:.6f} {int(hwm) * 1024} {len(trace.events)}')\n"
)


def write_trace(path: Path, records: int, seed: int = 7) -> None:
    """A regular v3 dual trace of `records` records, written with numpy (no per-record loop)."""
    rng = np.random.default_rng(seed)
    lines = ["*version", "3", "data-file-overflow=false", "clock=dual", "vm=art", "pid=4242"]
    lines.append(f"num-method-calls={records}")
    lines.append("*threads")
    lines += [f"{1 + i}\t{'main' if i == 0 else f'worker-{i}'}" for i in range(THREADS)]
    lines.append("*methods")
    for m in range(METHODS):
        ident = f"{m << 2:#x}" if m else "0"
        lines.append(f"{ident}\tcom.example.pkg{m % 41}.Class{m // 9}\tm{m % 9}\t()V\tC.java")
    lines.append("*end")
    key = ("\n".join(lines) + "\n").encode()
    header = b"SLOW" + np.array([3, 32], "<u2").tobytes() + np.array([0], "<u8").tobytes()
    header = (header + np.array([14], "<u2").tobytes()).ljust(32, b"\0")
    rec = np.zeros(records, dtype=[("tid", "<u2"), ("mid", "<u4"), ("cpu", "<u4"), ("wall", "<u4")])
    tid = rng.integers(0, THREADS, records)
    rec["tid"] = tid + 1
    rec["mid"] = (rng.integers(0, METHODS, records).astype(np.uint32) << 2) | (
        rng.integers(0, 2, records).astype(np.uint32)
    )
    wall = np.cumsum(rng.integers(1, 12, records))
    rec["wall"] = wall
    order = np.argsort(tid, kind="stable")
    step = rng.integers(0, 10, records)[order]
    cpu_sorted = np.cumsum(step)
    starts = np.flatnonzero(np.r_[True, tid[order][1:] != tid[order][:-1]])
    cpu_sorted -= np.repeat(cpu_sorted[starts], np.diff(np.r_[starts, records]))
    cpu = np.empty(records, dtype=np.int64)
    cpu[order] = cpu_sorted
    rec["cpu"] = cpu
    with path.open("wb") as f:
        f.write(key)
        f.write(header)
        f.write(rec.tobytes())


def write_generated(path: Path, records: int) -> None:
    """`traceview.synth.generate` at this size, written as a regular v3 dual trace."""
    from traceview.synth import generate
    from traceview.writer import write

    trace = generate(records=records, threads=16, seed=1)
    write(trace, path, variant="regular", version=3)


def main() -> None:
    """Generate (once) and load each size in fresh subprocesses; print one line per size."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, nargs="+", default=[1_000_000, 10_000_000])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    OUT.mkdir(exist_ok=True)
    print(f"machine: {machine()}")
    base = run([sys.executable, "-c", BASE])
    print(f"python + import traceview alone: peak RSS {mib(int(base.stderr))}")
    for n in args.records:
        for shape, writer in (("generated", write_generated), ("interleaved", write_trace)):
            path = OUT / f"bench_load_{shape}_{n}.trace"
            if not path.exists():
                writer(path, n)
            measure(path, shape, args.rounds)


def measure(path: Path, shape: str, rounds: int = 3) -> None:
    """Load `path` in `rounds` fresh subprocesses; print the medians and the peak RSS."""
    size = path.stat().st_size
    runs, anchor = [], []
    for _ in range(rounds):  # alternate with dmtracedump's whole run, the speed anchor
        runs.append(run([sys.executable, "-c", CHILD, str(path)]))
        if shutil.which("dmtracedump"):
            ref = run(["dmtracedump", str(path)])
            if ref.status == 0:  # it exits 1 on the first unbalanced exit (interleaved shape)
                anchor.append(ref.seconds)
    bad = [r for r in runs if r.status != 0]
    if bad:
        raise SystemExit(f"load failed: {bad[0].stderr}")
    stats = [tuple(float(x) for x in r.stderr.split()) for r in runs]
    n = int(stats[0][3])
    wall = statistics.median(s[0] for s in stats)
    cpu = statistics.median(s[1] for s in stats)
    rss = max(s[2] for s in stats)  # VmHWM read by the child itself
    print(
        f"{n:>11,} records {shape:<11} file {mib(size)}: load {wall:.3f} s wall, "
        f"{cpu:.3f} s CPU (median of {len(runs)}), peak RSS {mib(rss)} = {rss / size:.2f}x file"
    )
    if anchor:
        dmt = statistics.median(anchor)
        print(f"{'':>19}dmtracedump's whole run {dmt:.3f} s: our load = {wall / dmt:.2f}x of it")


if __name__ == "__main__":
    main()
