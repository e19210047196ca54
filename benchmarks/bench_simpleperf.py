"""Read speed of the simpleperf reader on a large generated report-sample file.

    python benchmarks/bench_simpleperf.py [--samples 1000000] [--rounds 3]

Writes a recording with the test writer's `big` (16 threads, 4000 call chains of ~40 frames
sharing their outer frames, 15 % of frames unresolved, cpu-clock and sched_switch samples) to
benchmarks/out/, then loads it in fresh subprocesses: wall and CPU time of `traceview.load`
(the child measures itself), MB/s of the file, peak RSS. Target: >= 50 MB/s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from harness import OUT, machine, mib

CHILD = """
import json, resource, sys, time
import traceview
path = sys.argv[1]
data = open(path, "rb").read()
wall, cpu = time.perf_counter(), time.process_time()
trace = traceview.load(data)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"wall": wall, "cpu": cpu, "events": len(trace.events), "peak": peak}))
"""


def generate(samples: int) -> Path:
    """The cached recording of `samples` samples."""
    from support.simpleperf_bytes import big

    path = OUT / f"simpleperf-{samples}.trace"
    if not path.exists():
        OUT.mkdir(exist_ok=True)
        path.write_bytes(big(samples))
    return path


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--samples", type=int, default=1_000_000)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    path = generate(args.samples)
    size = path.stat().st_size
    print(f"machine: {machine()}")
    runs = []
    for _ in range(args.rounds):
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, check=True
        )
        runs.append(json.loads(out.stdout))
    wall = statistics.median(r["wall"] for r in runs)
    cpu = statistics.median(r["cpu"] for r in runs)
    peak = max(r["peak"] for r in runs)
    print(
        f"{args.samples:,} samples, file {mib(size)}, {runs[0]['events']:,} events: "
        f"load {wall:.3f} s wall = {size / wall / 1e6:.0f} MB/s, {cpu:.3f} s CPU = "
        f"{size / cpu / 1e6:.0f} MB/s (median of {args.rounds}), peak RSS {mib(peak)} "
        f"= {peak / size:.2f}x file"
    )


if __name__ == "__main__":
    main()
