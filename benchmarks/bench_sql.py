"""`traceview sql` over many traces: the time to build the Parquet cache once, then the time of
a group-by across every trace once the tables exist (target: 100 traces of 100k records each
answer in <= 2 s, the whole command included).

    python benchmarks/bench_sql.py [--traces 100] [--records 100000] [--rounds 5]

The traces are `traceview.synth.generate(records, threads=8, seed=i)` written to
benchmarks/out/sql-runs/ (git-ignored); the cache lives in benchmarks/out/sql-cache/
(XDG_CACHE_HOME points there), never in the user's ~/.cache.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import OUT, machine, median_seconds, mib, run
from traceview.synth import generate
from traceview.writer import write

QUERIES = {
    "excl by method, all traces": (
        "SELECT m.label, sum(c.excl_wall_ns) AS excl FROM calls c "
        "JOIN methods m USING (trace, method) GROUP BY m.label ORDER BY excl DESC LIMIT 20"
    ),
    "main thread total per trace": (
        "SELECT trace, sum(excl_cpu_ns) AS cpu FROM calls JOIN threads USING (trace, thread) "
        "WHERE main GROUP BY trace ORDER BY cpu DESC LIMIT 20"
    ),
    "slowest edges": (
        "SELECT caller, callee, sum(calls) AS n, sum(incl_wall_ns) AS w FROM edges "
        "GROUP BY ALL ORDER BY w DESC LIMIT 20"
    ),
}


def runs(folder: Path, count: int, records: int) -> list[Path]:
    """The generated traces (written on first use)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(count):
        path = folder / f"run-{records}-{i:04d}.trace"
        if not path.exists():
            write(generate(records=records, threads=8, seed=i), path, variant="regular")
        out.append(path)
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--traces", type=int, default=100)
    p.add_argument("--records", type=int, default=100_000)
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args()
    print(machine())
    folder = OUT / "sql-runs"
    t0 = time.perf_counter()
    paths = runs(folder, args.traces, args.records)
    size = sum(x.stat().st_size for x in paths)
    print(
        f"{len(paths)} traces x {args.records} records ({mib(size)}), ready in "
        f"{time.perf_counter() - t0:.1f} s"
    )
    cache = OUT / "sql-cache"
    shutil.rmtree(cache, ignore_errors=True)
    env = {"XDG_CACHE_HOME": str(cache)}
    pattern = str(folder / f"run-{args.records}-*.trace")
    cmd = [sys.executable, "-m", "traceview", "sql", pattern]
    first = run([*cmd, "SELECT count(*) FROM calls"], env=env)
    if first.status:
        print(first.stderr)
        return 1
    cached = sum(f.stat().st_size for f in cache.rglob("*.parquet"))
    print(
        f"build the cache: {first.seconds:.1f} s, peak RSS {mib(first.peak_rss)}, "
        f"{mib(cached)} of Parquet"
    )
    for name, query in QUERIES.items():
        timed = [run([*cmd, query], env=env) for _ in range(args.rounds)]
        bad = [r for r in timed if r.status]
        if bad:
            print(bad[0].stderr)
            return 1
        print(
            f"{name}: median {median_seconds(timed):.2f} s over {args.rounds} runs, "
            f"peak RSS {mib(max(r.peak_rss for r in timed))}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
