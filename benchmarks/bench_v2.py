"""Decode speed of the V2 reader on a large synthetic trace written by the V2 writer.

    python benchmarks/bench_v2.py [--records 10000000] [--generation beta] [--streaming]

Builds a dual-clock Trace with numpy (16 threads, 100k methods, random enter/exit), writes it
with `write_v2` to benchmarks/out/, then times `traceview.readers.v2.read` on the bytes (best of 3).
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import OUT, machine, mib
from traceview.model import (
    EventTable,
    Header,
    MethodTable,
    ThreadTable,
    Trace,
    thread_index_dtype,
)
from traceview.readers.v2 import read
from traceview.writer.v2 import write_v2


def synthetic(records: int, threads: int = 16, methods: int = 100_000, seed: int = 1) -> Trace:
    """A dual-clock trace of `records` random records (not nested: decoding does not care)."""
    rng = np.random.default_rng(seed)
    thread = rng.integers(0, threads, records).astype(thread_index_dtype(threads))
    method = rng.integers(0, methods, records).astype(np.int32)
    action = rng.integers(0, 2, records).astype(np.uint8)
    wall = np.cumsum(rng.integers(100, 5000, records)).astype(np.int64)
    cpu = (wall * 0.8).astype(np.int64)
    ids = (np.arange(methods, dtype=np.uint64) * np.uint64(48)) + np.uint64(0x7000_0000_0000)
    table = MethodTable(
        id=ids,
        class_name=tuple(f"com.example.pkg{i % 97}.Class{i // 7}" for i in range(methods)),
        name=tuple(f"method{i % 7}" for i in range(methods)),
        signature=("()V",) * methods,
        source_file=tuple(f"Class{i // 7}.java" for i in range(methods)),
        line=np.full(methods, -1, dtype=np.int32),
        declared=np.ones(methods, dtype=bool),
    )
    tt = ThreadTable(
        id=np.arange(1000, 1000 + threads, dtype=np.int64),
        name=tuple(f"worker-{i}" for i in range(threads)),
    )
    header = Header(variant="v2", version=5, clock="dual", vm="art", start_time_us=10**9)
    return Trace(header, tt, table, EventTable(thread, method, action, cpu, wall))


def main() -> None:
    """Write the trace once, then time the reader."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=10_000_000)
    ap.add_argument("--generation", default="beta")
    ap.add_argument("--streaming", action="store_true")
    args = ap.parse_args()
    OUT.mkdir(exist_ok=True)
    path = OUT / f"bench_v2_{args.generation}_{args.records}.trace"
    t0 = time.perf_counter()
    trace = synthetic(args.records)
    buf = io.BytesIO()
    write_v2(trace, buf, streaming=args.streaming, generation=args.generation)
    data = buf.getvalue()
    path.write_bytes(data)
    print(f"machine: {machine()}")
    print(f"wrote {args.records:,} records, {mib(len(data))}, in {time.perf_counter() - t0:.1f} s")
    best = cpu = float("inf")
    for _ in range(3):
        t0, c0 = time.perf_counter(), time.process_time()
        out = read(data)
        best = min(best, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)
    assert len(out.events) == args.records
    rate = args.records / best / 1e6
    print(
        f"read v2 {args.generation} dual: {best:.2f} s wall, {cpu:.2f} s CPU "
        f"({rate:.1f} M records/s)"
    )


if __name__ == "__main__":
    main()
