"""`traceview dmtracedump` against Debian's dmtracedump on the same generated traces, run
alternately, with `traceview -r` measured in the same rounds.

    python benchmarks/bench_dmtracedump.py [--records 1000000 10000000] [--rounds 5]
                                           [--shapes even dominant many sampled]

Traces: the shapes of `make_traces.py` (`out/shape-<name>-<records>.trace`, cached; balanced
but for `sampled`, so dmtracedump reads them). Each round runs, in this order,
`traceview dmtracedump TRACE`, `dmtracedump TRACE` and `traceview -r TRACE` (stdout
discarded; ours with `TRACEVIEW_TIMINGS=1` for the phases). Also measures the process floor
(`traceview --version`). Prints the machine, then per size: median wall and CPU (user +
system) seconds and peak RSS of each, the ratios to dmtracedump (targets, issue 23: 10M CPU
<= 1.0x and wall <= 0.6x, 70M wall <= 0.35x, peak RSS <= 2x the file; `traceview -r` at 10M
wall <= 0.5x) and our median phases, with the load average.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_engine import Timed, phases, run
from harness import load, machine, mib
from make_traces import SHAPES, shape_path


def main(argv: list[str]) -> int:
    """Run the comparison; print one block per size."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--records", type=int, nargs="+", default=[1_000_000, 10_000_000])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--shapes", nargs="+", default=["even", "dominant", "many", "sampled"])
    args = p.parse_args(argv)
    dmt = shutil.which("dmtracedump")
    if dmt is None:
        print("Debian's dmtracedump is not installed (apt-get install dmtracedump)")
        return 1
    py = [sys.executable, "-m", "traceview"]
    env = {"TRACEVIEW_TIMINGS": "1"}
    print(machine())
    floor = [run([*py, "--version"]) for _ in range(args.rounds)]
    print(
        f"floor: traceview --version {statistics.median(r.seconds for r in floor):.3f} s wall"
        f"  {statistics.median(r.cpu for r in floor):.3f} s cpu"
    )
    med = statistics.median
    for records, shape in [(r, s) for r in args.records for s in args.shapes]:
        path = str(shape_path(shape, records))
        size = Path(path).stat().st_size
        commands = {
            "traceview dmtracedump": ([*py, "dmtracedump", path], env),
            "dmtracedump": ([dmt, path], None),
            "traceview -r": ([*py, "-r", path], env),
        }
        results: dict[str, list[Timed]] = {name: [] for name in commands}
        for _ in range(args.rounds):
            for name, (cmd, cmd_env) in commands.items():
                results[name].append(run(cmd, env=cmd_env))
        for name, runs in results.items():
            bad = [r for r in runs if r.status != 0]
            if bad:
                print(f"{name} failed: {bad[0].stderr.strip()[:300]}")
                return 1
        threads = SHAPES[shape]["threads"]
        print(f"{records:,} records, {shape} ({threads} threads), {mib(size)}, {load()}")
        base = results["dmtracedump"]
        t_dmt, c_dmt = med(r.seconds for r in base), med(r.cpu for r in base)
        for name, runs in results.items():
            wall, cpu = med(r.seconds for r in runs), med(r.cpu for r in runs)
            rss = max(r.peak_rss for r in runs)
            pairs = [a.seconds / b.seconds for a, b in zip(runs, base, strict=True)]
            print(
                f"  {name:22s} {wall:6.2f} s wall {cpu:6.2f} s cpu  peak {mib(rss)}"
                f" ({rss / size:.2f}x file)  wall {wall / t_dmt:.2f}x"
                f" [pairs {min(pairs):.2f}-{max(pairs):.2f}]  cpu {cpu / c_dmt:.2f}x"
            )
        for name in ("traceview dmtracedump", "traceview -r"):
            print(f"  phases {name} (median): {phases(results[name])}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
