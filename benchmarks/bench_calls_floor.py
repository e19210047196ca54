"""The floor under issue 21's "Parquet export at 10M records <= the profile": the whole-trace
profile (direct) against what any export of the calls table must do at least — build the call
table, make its columns, and put their bytes in files — the columns written (a) as their raw
bytes and (b) as Parquet with no compression, plain encoding and no statistics, each on two
threads (two row ranges), to a folder beside the traces (a disk, not a tmpfs).

    python benchmarks/bench_calls_floor.py [--records 10000000] [--rounds 3]

The trace is bench_export.py's (`out/gen-<records>-regular.trace`); best of `rounds` each.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_export import trace_of
from harness import OUT, machine, mib
from traceview.analysis import Session
from traceview.analysis.view import View
from traceview.api.tables import CallsBuilder
from traceview.exporters.parquet import to_arrow


def best(fn: Callable[[], object], rounds: int) -> float:
    """The fewest seconds `fn` took in `rounds` runs."""
    out = float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - t)
    return out


def on_two(write: Callable[[int], None]) -> None:
    """`write(0)` and `write(1)` at once."""
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(write, range(2)))


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--records", type=int, default=10_000_000)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args(argv)
    import pyarrow as pa
    import pyarrow.parquet as pq

    print(machine())
    trace = trace_of(args.records)
    profile = best(lambda: Session(trace).profile(Session(trace).query()), args.rounds)
    calls = best(lambda: len(Session(trace).calls), args.rounds)
    session = Session(trace)
    build = CallsBuilder(View(session, session.query()))
    n = len(build)
    t = time.perf_counter()
    table = pa.concat_tables([to_arrow("calls", c, "0" * 64) for c in build.pieces(0, n, 1 << 20)])
    columns = time.perf_counter() - t
    halves: list[Any] = [table.slice(0, n // 2), table.slice(n // 2)]
    OUT.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(dir=OUT))
    size = sum(b.size for c in table.columns for k in c.chunks for b in k.buffers() if b)

    def raw(i: int) -> None:
        (folder / f"raw-{i}").unlink(missing_ok=True)
        with (folder / f"raw-{i}").open("wb") as f:
            for chunk in (c for col in halves[i].columns for c in col.chunks):
                for buf in chunk.buffers():
                    if buf is not None:
                        f.write(buf)

    def plain(i: int) -> None:
        (folder / f"plain-{i}.parquet").unlink(missing_ok=True)
        pq.write_table(
            halves[i],
            folder / f"plain-{i}.parquet",
            compression="none",
            use_dictionary=False,
            write_statistics=False,
        )

    try:
        raw_s = best(lambda: on_two(raw), args.rounds)
        plain_s = best(lambda: on_two(plain), args.rounds)
    finally:
        shutil.rmtree(folder)
    print(f"{args.records:,} records, {n:,} calls, {table.num_columns} columns")
    print(f"  profile (direct)                       {profile:6.2f} s")
    print(f"  call table                             {calls:6.2f} s")
    print(f"  its columns (pyarrow, one thread)      {columns:6.2f} s")
    print(f"  columns' bytes to files, two threads   {raw_s:6.2f} s ({mib(size)})")
    print(f"  Parquet, no compression, two threads   {plain_s:6.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
