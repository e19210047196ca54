"""Engine benchmark: `traceview -r` against Debian's dmtracedump on the same balanced v3 dual
traces, run alternately, with peak RSS and our phase timings.

    python benchmarks/bench_engine.py [--records 1000000 10000000] [--rounds 5] [--threads 24]

Traces come from `traceview.synth.generate(records, threads, seed=0, balanced=True)` written
as regular v3 dual files (`out/bal-<records>.trace`, cached; balanced so dmtracedump accepts
them and the numbers agree). Each round runs `traceview -r` (a subprocess, stdout discarded,
`TRACEVIEW_TIMINGS=1` for its phases) and `dmtracedump` once each. Prints the machine, then per
size: file size, median wall time of both, the ratio (ours / dmtracedump; target <= 1.0), peak
RSS of both (ru_maxrss via wait4; target for ours <= 3x the file size) and the median phase
timings (load, analysis, output: wall and CPU seconds; calls and profile: seconds spent
pairing and counting, summed over the worker threads, so with two workers they can exceed
the analysis wall time).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import OUT, machine, mib


@dataclass(frozen=True)
class Timed:
    """One run: wall and CPU (user + system) seconds, peak RSS bytes, status, stderr."""

    seconds: float
    cpu: float
    peak_rss: int
    status: int
    stderr: str


def run(cmd: list[str], env: dict[str, str] | None = None) -> Timed:
    """Run `cmd` (stdout discarded); wall time, and CPU time and peak RSS from wait4."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, **(env or {})}
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    return Timed(
        seconds,
        usage.ru_utime + usage.ru_stime,
        usage.ru_maxrss * 1024,
        os.waitstatus_to_exitcode(status),
        err.decode(errors="replace"),
    )


PHASE = re.compile(r"(\w+)=([\d.]+)s(?:/([\d.]+)cpu)?")


def trace_path(records: int, threads: int) -> Path:
    """The cached balanced trace of `records` records (written on first use, in a child
    process: a forked child's ru_maxrss starts at its parent's RSS, so this process stays
    small to keep the measured peaks honest)."""
    path = OUT / f"bal-{records}-{threads}.trace"
    if not path.exists():
        OUT.mkdir(parents=True, exist_ok=True)
        code = (
            "import sys; from traceview.synth import generate; "
            "from traceview.writer import write; "
            "write(generate(records=int(sys.argv[1]), threads=int(sys.argv[2]), seed=0, "
            "balanced=True), sys.argv[3], variant='regular')"
        )
        subprocess.run(
            [sys.executable, "-c", code, str(records), str(threads), str(path)], check=True
        )
    return path


def phases(runs: list[Timed]) -> str:
    """Median wall/CPU seconds of each phase named in the runs' TRACEVIEW_TIMINGS lines."""
    found: dict[str, list[tuple[float, float | None]]] = {}
    for r in runs:
        for name, wall, cpu in PHASE.findall(r.stderr):
            if name != "total":
                found.setdefault(name, []).append((float(wall), float(cpu) if cpu else None))
    med = statistics.median
    out = []
    for name, v in found.items():
        cpus = [c for _, c in v if c is not None]
        cpu = f"/{med(cpus):.2f}cpu" if cpus else ""
        out.append(f"{name} {med(w for w, _ in v):.2f}s{cpu}")
    return "  ".join(out)


def main(argv: list[str]) -> int:
    """Run the comparison; print one block per size."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--records", type=int, nargs="+", default=[1_000_000, 10_000_000])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--threads", type=int, default=24)
    p.add_argument(
        "--workers",
        default=None,
        help="TRACEVIEW_WORKERS for our runs (1, 2, auto); default: unset (-r uses two "
        "workers on a machine with two or more cores)",
    )
    args = p.parse_args(argv)
    dmt = shutil.which("dmtracedump")
    ours = [sys.executable, "-m", "traceview", "-r"]
    env = {"TRACEVIEW_TIMINGS": "1"}
    if args.workers is not None:
        env["TRACEVIEW_WORKERS"] = args.workers
    print(machine())
    for records in args.records:
        path = trace_path(records, args.threads)
        size = path.stat().st_size
        results: dict[str, list[Timed]] = {"traceview -r": [], "dmtracedump": []}
        for _ in range(args.rounds):
            results["traceview -r"].append(run([*ours, str(path)], env=env))
            if dmt:
                results["dmtracedump"].append(run([dmt, str(path)]))
        for name, runs in results.items():
            bad = [r for r in runs if r.status != 0]
            if bad:
                print(f"{name} failed: {bad[0].stderr.strip()[:300]}")
                return 1
        med = statistics.median
        t_ours = med(r.seconds for r in results["traceview -r"])
        c_ours = med(r.cpu for r in results["traceview -r"])
        rss_ours = max(r.peak_rss for r in results["traceview -r"])
        print(
            f"{records:,} records, {args.threads} threads, {mib(size)} ({path.name}), "
            f"TRACEVIEW_WORKERS={args.workers or 'unset'}"
        )
        print(
            f"  traceview -r  {t_ours:6.2f} s wall  {c_ours:6.2f} s cpu  peak {mib(rss_ours)}"
            f" ({rss_ours / size:.2f}x file)"
        )
        if dmt:
            t_dmt = med(r.seconds for r in results["dmtracedump"])
            c_dmt = med(r.cpu for r in results["dmtracedump"])
            rss_dmt = max(r.peak_rss for r in results["dmtracedump"])
            print(f"  dmtracedump   {t_dmt:6.2f} s wall  {c_dmt:6.2f} s cpu  peak {mib(rss_dmt)}")
            print(
                f"  ratio ours/dmtracedump: wall {t_ours / t_dmt:.2f}, cpu {c_ours / c_dmt:.2f}"
                " (target <= 1.0)"
            )
        print(f"  phases (median): {phases(results['traceview -r'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
