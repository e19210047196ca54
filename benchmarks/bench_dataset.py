"""The dataset (issue 21): `traceview dataset add` of many traces against the profile alone,
a group-by over a thousand traces' profile tables with DuckDB, and the Spark local ingest
against `dataset add` of the same traces.

    python benchmarks/bench_dataset.py [--traces 100] [--records 1000000]
        [--groupby-traces 1000] [--groupby-records 20000] [--spark-traces 100]
        [--spark-records 100000] [--rounds 3] [--skip add groupby trickle spark]

Traces are `synth.generate(records, threads=8, seed=i)` in benchmarks/out/ds-<records>/
(git-ignored, kept between runs); datasets are written to a fresh folder there. `dataset add`
runs as the command (`python -m traceview dataset add`), timed with its CPU time (user +
system, from wait4): CPU / wall near 2 means both cores busy. "profile alone" is what
`traceview stats` does for each trace: read it and compute its whole-trace profile, one
trace after the other in one process. Targets: dataset add in the profile's order of time;
the group-by <= 2 s, also over traces added one at a time (`trickle`); Spark's overhead
reported.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import OUT, machine, mib
from traceview.synth import generate
from traceview.writer import write

SRC = str(Path(__file__).resolve().parents[1] / "src")
GROUPBY = (
    "SELECT t.build, p.method_key, count(DISTINCT p.trace_id) AS traces, "
    "sum(p.excl_wall_ns) AS excl, median(p.incl_wall_ns) AS incl "
    "FROM profile p JOIN traces t USING (trace_id) "
    "GROUP BY t.build, p.method_key ORDER BY excl DESC LIMIT 20"
)


def traces(n: int, records: int) -> list[Path]:
    """`n` generated traces of `records` records (made once, kept)."""
    folder = OUT / f"ds-{records}"
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for seed in range(n):
        path = folder / f"gen-{seed:04d}.trace"
        if not path.exists():
            write(generate(records=records, threads=8, seed=seed), str(path))
        out.append(path)
    return out


def command(argv: list[str]) -> tuple[float, float, int]:
    """Run a traceview command: (wall s, CPU s, peak RSS bytes); raises on failure."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [SRC, os.environ.get("PYTHONPATH")])),
    }
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "traceview", *argv],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(err.decode(errors="replace")[-2000:])
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024


def profile_alone(paths: list[Path]) -> tuple[float, float]:
    """Read each trace and compute its profile, one after the other: (wall s, CPU s)."""
    from traceview.analysis import Session
    from traceview.readers import load

    wall, cpu = time.perf_counter(), time.process_time()
    for p in paths:
        s = Session(load(p))
        s.profile(s.query())
    return time.perf_counter() - wall, time.process_time() - cpu


def size_of(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*.parquet"))


def bench_add(n: int, records: int, rounds: int) -> None:
    paths = traces(n, records)
    total = sum(p.stat().st_size for p in paths)
    print(f"\ndataset add: {n} traces x {records:,} records ({mib(float(total))} of traces)")
    for r in range(rounds):
        root = OUT / "ds-bench"
        shutil.rmtree(root, ignore_errors=True)
        p_wall, p_cpu = profile_alone(paths)
        a_wall, a_cpu, rss = command(
            ["dataset", "add", str(root), *map(str, paths), "-q", "--build", "1"]
        )
        recs = n * records
        print(
            f"  round {r + 1}: profile alone {p_wall:6.1f} s (CPU {p_cpu:5.1f} s) | dataset add "
            f"{a_wall:6.1f} s (CPU {a_cpu:5.1f} s, CPU/wall {a_cpu / a_wall:4.2f}, peak "
            f"{mib(float(rss))}) = {recs / a_wall / 1e6:5.2f} M records/s, "
            f"{total / a_wall / 2**20:5.1f} MiB/s of traces, {a_wall / p_wall:4.2f}x the profile; "
            f"{mib(float(size_of(root)))} of Parquet",
            flush=True,
        )


def bench_groupby(n: int, records: int, rounds: int, one_at_a_time: bool = False) -> None:
    """The group-by over `n` traces' profile tables, added in two commands (builds 100 and
    101), or with `one_at_a_time` one `add` per trace (a CI job per run, the service's
    uploads; in process, timed), where the small parts are merged as they gather."""
    from traceview.dataset.add import add
    from traceview.dataset.read import sql

    paths = traces(n, records)
    root = OUT / ("ds-groupby-trickle" if one_at_a_time else "ds-groupby")
    if one_at_a_time and not (root / "traces").is_dir():
        t = time.perf_counter()
        for i, path in enumerate(paths):
            add(root, [path], {"build": "100" if i < n // 2 else "101"}, workers=1)
        wall = time.perf_counter() - t
        print(f"\ngroup-by: {n} traces x {records:,} records added one at a time in {wall:.1f} s")
        print(f"  ({wall / n * 1000:.0f} ms an add)")
    if not (root / "traces").is_dir():
        half = n // 2
        wall, cpu, _ = command(
            ["dataset", "add", str(root), *map(str, paths[:half]), "-q", "--build", "100"]
        )
        w2, c2, _ = command(
            ["dataset", "add", str(root), *map(str, paths[half:]), "-q", "--build", "101"]
        )
        print(f"\ngroup-by: {n} traces x {records:,} records added in {wall + w2:.1f} s", end="")
        print(f" (CPU {cpu + c2:.1f} s)")
    files = len(list((root / "profile").rglob("*.parquet")))
    every = len(list(root.rglob("*.parquet")))
    print(
        f"  profile table: {files} part files, {mib(float(size_of(root / 'profile')))}"
        f" ({every} part files in all tables)"
    )
    inproc, whole = [], []
    for _ in range(rounds):
        t = time.perf_counter()
        rows = sql(root, GROUPBY).rows
        inproc.append(time.perf_counter() - t)
        whole.append(command(["sql", "--dataset", str(root), GROUPBY])[0])
    print(f"  {GROUPBY}")
    print(
        f"  {len(rows)} rows: DuckDB in process median {statistics.median(inproc):.2f} s, "
        f"the whole `traceview sql --dataset` command median {statistics.median(whole):.2f} s "
        f"(over {rounds} runs)"
    )


def bench_spark(n: int, records: int) -> None:
    if shutil.which("java") is None:
        print("\nspark: skipped (no Java)")
        return
    from pyspark.sql import SparkSession

    from traceview.dataset.spark import ingest

    paths = traces(n, records)
    root = OUT / "ds-spark"
    shutil.rmtree(root, ignore_errors=True)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    t = time.perf_counter()
    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    start = time.perf_counter() - t
    t = time.perf_counter()
    report = ingest(spark, [str(p) for p in paths], str(root), {"build": "1"})
    spark_s = time.perf_counter() - t
    spark.stop()
    add_root = OUT / "ds-spark-add"
    shutil.rmtree(add_root, ignore_errors=True)
    add_s = command(["dataset", "add", str(add_root), *map(str, paths), "-q", "--build", "1"])[0]
    print(
        f"\nspark local[2]: {len(report.added)} traces x {records:,} records: session start "
        f"{start:.1f} s, ingest {spark_s:.1f} s; dataset add of the same {add_s:.1f} s "
        f"(Spark's overhead {spark_s / add_s:.2f}x, {spark_s - add_s:+.1f} s)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", type=int, default=100)
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--groupby-traces", type=int, default=1000)
    ap.add_argument("--groupby-records", type=int, default=20_000)
    ap.add_argument("--spark-traces", type=int, default=100)
    ap.add_argument("--spark-records", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--skip", nargs="*", default=[], choices=("add", "groupby", "trickle", "spark"))
    args = ap.parse_args()
    print(machine())
    if "add" not in args.skip:
        bench_add(args.traces, args.records, args.rounds)
    if "groupby" not in args.skip:
        bench_groupby(args.groupby_traces, args.groupby_records, args.rounds)
    if "trickle" not in args.skip:
        bench_groupby(args.groupby_traces, args.groupby_records, args.rounds, one_at_a_time=True)
    if "spark" not in args.skip:
        bench_spark(args.spark_traces, args.spark_records)


if __name__ == "__main__":
    main()
