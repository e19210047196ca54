"""Comparison benchmark (issue 20): two large traces compared per method and per call path,
the differential flame graph, and N vs N runs end to end.

    python benchmarks/bench_compare.py [--records 10000000] [--runs 10] [--run-records 1000000]
                                       [--skip-pair] [--skip-runs]

Pair: two generated traces of `--records` records (8 threads; seeds 0 and 1, so their call
trees differ as two builds' would), loaded once. Every measurement starts from fresh
sessions on them. Prints the anchor — one trace's profile (`session.profile`, the direct path
`traceview stats` uses) — then the comparison's phases: the methods table alone
(`analysis.diff`: both profiles, matched), the whole comparison (`analysis.compare`: call
tables, profiles from them, one merged tree per thread, paths aligned and compared) with its
phases, then the answers a front end asks of a finished comparison: the differential flame
layout (each side), the bottom-up paths and the SVG file. Targets: the methods table ≤ 2× the
profile; the flame graph answer ≤ 0.5 s.

Runs: `--runs` baseline and `--runs` candidate traces of `--run-records` records (one
generated app, each run's gaps scaled by its own log-normal noise, σ = 3 %), written to
`out/` (cached), then `traceview diff BASE... --vs CAND... --json -o /dev/null` timed as a
whole in a fresh process (reading, selecting, summarising one run at a time, comparing,
writing). Target: 10 vs 10 runs of 1M records ≤ 10 s.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import OUT, machine, mib, run
from traceview.analysis import Session
from traceview.analysis.compare import compare
from traceview.analysis.diff import diff
from traceview.analysis.view import View
from traceview.exporters import Options, get
from traceview.model import Trace


def timed(what: Callable[[], Any]) -> tuple[float, Any]:
    """Seconds `what()` took, and its value."""
    t = time.perf_counter()
    value = what()
    return time.perf_counter() - t, value


def jittered(trace: Trace, seed: int, sigma: float) -> Trace:
    """`trace` with each thread's gaps scaled by a log-normal factor per gap (numpy; the
    whole trace keeps its shape)."""
    rng = np.random.default_rng(seed)
    ev = trace.events
    cols = {c: ev.time(c).copy() for c in ev.clocks}
    for t in range(len(trace.threads)):
        idx = np.flatnonzero(ev.thread == t)
        if len(idx) < 2:
            continue
        scale = rng.lognormal(0.0, sigma, len(idx) - 1)
        for col in cols.values():
            gaps = np.rint(np.diff(col[idx]) * scale / 1000).astype(np.int64) * 1000
            col[idx] = col[idx[0]] + np.concatenate(([0], np.cumsum(gaps)))
    return replace(trace, events=replace(ev, cpu=cols.get("cpu"), wall=cols.get("wall")))


def pair(records: int) -> None:
    """The two-trace measurements."""
    from traceview.synth import generate

    print(f"pair: 2 x {records:,} records (generate seeds 0 and 1, 8 threads)")
    a, b = (generate(records=records, threads=8, seed=s) for s in (0, 1))
    # warm-up: numba's kernels loaded once, as a long-lived viewer would have them
    small = generate(records=20_000, threads=2, seed=2)
    compare([Session(small)], [Session(small)]).diff_flame()

    warm = Session(a)
    warm.profile(warm.query())  # the direct profile's kernels loaded too
    sa, sb = Session(a), Session(b)
    p, _ = timed(lambda: sa.profile(sa.query()))
    print(f"  anchor: one trace's profile                     {p:7.2f} s")
    sa, sb = Session(a), Session(b)
    m, _ = timed(lambda: diff([View(sa, sa.query())], [View(sb, sb.query())]))
    print(f"  methods table (both profiles, matched)          {m:7.2f} s = {m / p:.2f}x profile")
    sa, sb = Session(a), Session(b)
    phases: dict[str, float] = {}
    t0 = time.perf_counter()
    for s in (sa, sb):
        phases["call tables"] = phases.get("call tables", 0) + timed(lambda s=s: s.calls)[0]
    from traceview.analysis.compare import summarise_run

    runs = []
    for s in (sa, sb):
        dt, r = timed(lambda s=s: summarise_run(View(s, s.query())))
        phases["profiles + trees per thread"] = phases.get("profiles + trees per thread", 0) + dt
        runs.append(r)
    dt, c = timed(lambda: compare([runs[0]], [runs[1]]))
    phases["methods matched + paths aligned"] = dt
    whole = time.perf_counter() - t0
    print(f"  whole comparison (methods + paths)              {whole:7.2f} s = {whole / p:.2f}x")
    for name, sec in phases.items():
        print(f"    {name:45s} {sec:7.2f} s")
    assert c.paths is not None
    print(f"    paths: {len(c.paths):,} aligned, {len(c.methods):,} methods")
    for side in ("candidate", "baseline"):
        dt, f = timed(lambda side=side: c.diff_flame(side, 1 / 12_000))
        print(f"  differential flame answer ({side:9s})          {dt:7.3f} s ({len(f):,} nodes)")
    dt, bu = timed(lambda: c.bottom_up)
    print(f"  bottom-up paths                                 {dt:7.2f} s ({len(bu):,} rows)")
    out = OUT / "compare.svg"
    with out.open("w", encoding="utf-8") as fh:
        dt, _ = timed(lambda: get("diff-svg").export(c, fh, Options()))
    print(
        f"  diff SVG file                                   {dt:7.2f} s, {mib(out.stat().st_size)}"
    )


def runs_end_to_end(n: int, records: int) -> None:
    """`traceview diff` over n vs n runs, in a fresh process."""
    from traceview.synth import generate
    from traceview.writer import write

    paths: dict[str, list[str]] = {"base": [], "cand": []}
    trace: Trace | None = None
    for side, offset in (("base", 0), ("cand", 1000)):
        for i in range(n):
            path = OUT / f"cmp-{records}-{side}{i}.trace"
            if not path.exists():
                trace = trace or generate(records=records, threads=8, seed=7)
                write(jittered(trace, offset + i, 0.03), path)
            paths[side].append(str(path))
    size = sum(Path(p).stat().st_size for p in paths["base"] + paths["cand"])
    cmd = [sys.executable, "-m", "traceview", "diff", *paths["base"], "--vs", *paths["cand"]]
    cmd += ["--json", "-o", "/dev/null"]
    print(f"runs: {n} vs {n} x {records:,} records ({mib(size)} of traces)")
    for _ in range(2):
        r = run(cmd)
        print(f"  traceview diff --json, whole process           {r.seconds:7.2f} s")
        print(f"    exit {r.status}, peak RSS {mib(r.peak_rss)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=int, default=10_000_000)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--run-records", type=int, default=1_000_000)
    ap.add_argument("--skip-pair", action="store_true")
    ap.add_argument("--skip-runs", action="store_true")
    args = ap.parse_args()
    OUT.mkdir(exist_ok=True)
    print(f"machine: {machine()}")
    if not args.skip_pair:
        pair(args.records)
    if not args.skip_runs:
        runs_end_to_end(args.runs, args.run_records)


if __name__ == "__main__":
    main()
