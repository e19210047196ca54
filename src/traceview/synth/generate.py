"""`generate(...)`: deterministic, realistic Android method traces of any size, for tests, the
bundled demo and benchmarks.

Per thread: the frames on the stack when tracing began (entered at t=0 as ART reports them,
or returning without an enter as Dalvik shows them), then call-tree templates from
`writer.library` tiled with numpy and rescaled per instance, cut at the record budget (calls
left open) or, in balanced mode, closed completely. Wall time runs ahead of thread-CPU time in
blocking calls; idle time is spread so every thread spans the same trace duration.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.model import (
    Clock,
    EventTable,
    Header,
    MethodTable,
    ThreadTable,
    Trace,
    thread_index_dtype,
)
from traceview.synth.buffers import flush_order
from traceview.synth.library import Library, columns, draw, library, tile
from traceview.synth.sampling import sample
from traceview.synth.threadkinds import FILL, STOP, ThreadKind, thread_plan

I64 = npt.NDArray[np.int64]
Col = npt.NDArray[Any]
Cols = tuple[Col, Col, Col, Col, Col]  # action u1, method i4, cpu/wall µs deltas i8, idle bool


def generate(
    records: int = 100_000,
    threads: int = 8,
    seed: int = 0,
    clock: Clock = "dual",
    *,
    style: str = "art",
    balanced: bool = False,
    sampled: bool = False,
    sampling_interval_us: int = 1000,
    duration_us: int | None = None,
    version: int | None = None,
    order: str = "time",
    chunk_records: int = 1 << 17,
    thread_ids: str = "encoded",
    overflow_records: int | None = None,
    main_share: float | None = None,
    methods: int | None = None,
) -> Trace:
    """A realistic trace of about `records` records on `threads` threads (same seed, same trace).

    `style` "art" (dotted names, dense ids, threads 1..N, on-stack frames entered at start)
    or "dalvik" (slash names, pointer ids, exits without enters at start, vm=dalvik).
    `balanced` closes every call and drops unrolls (to compare exactly with dmtracedump);
    `sampled` turns the calls into what a sampling profiler records every
    `sampling_interval_us` (format.md §1.9). `duration_us` stretches idle time so the trace
    lasts at least that long (past 2^32 µs to exercise the V1 wrap). `order` "time" writes
    records in global time order (Dalvik, ART <= 13: one shared buffer); "chunks" as ART >= 2023
    does, each thread's records in chunks of `chunk_records`, flushed when full or at the stop.
    `thread_ids` "encoded" numbers ART threads 1, 2, 3... in first-seen order (ART >= 2023);
    "tid" uses Linux tids, main = pid (ART <= 13). Dalvik threads get small internal ids.
    `overflow_records` emulates ART >= 2023's full trace buffer (implies chunks): the first
    chunk that does not fit is dropped, tracing stops, `data-file-overflow=true`.
    """
    if style not in ("art", "dalvik"):
        raise ValueError(f"style must be art or dalvik, not {style!r}")
    if threads < 1 or records < 0:
        raise ValueError("need at least one thread and a non-negative record count")
    if order not in ("time", "chunks"):
        raise ValueError(f"order must be time or chunks, not {order!r}")
    if thread_ids not in ("encoded", "tid"):
        raise ValueError(f"thread_ids must be encoded or tid, not {thread_ids!r}")
    if balanced and sampled:
        raise ValueError("a sampled trace is never balanced: its last stacks stay open")
    if main_share is not None and not 0 < main_share < 1:
        raise ValueError(f"main_share must be between 0 and 1, not {main_share}")
    if version is not None and (version == 3) != (clock == "dual"):
        raise ValueError(f"version {version} cannot hold clock={clock} (v3 is the dual-clock one)")
    rng = np.random.default_rng(seed)
    lib = library(seed)
    pid = int(rng.integers(2000, 32000))
    plan = thread_plan(threads, pid)
    shares = np.array([kind.busy / lib.wall_per_event(kind.key) for kind, _ in plan])
    shares[1:] *= rng.uniform(0.6, 1.4, threads - 1)  # two workers are never equally busy
    if main_share is not None and threads > 1:
        shares[0] = shares[1:].sum() * main_share / (1 - main_share)
    copies = _copies(lib, methods)
    # a sampler sees a fraction of the calls: a small pilot run measures which
    total = min(records * 2, 50_000) if sampled else records
    for _ in range(3 if sampled else 1):
        budgets = np.floor(shares / shares.sum() * total).astype(np.int64)
        if threads > 1:  # every thread gets a few records
            budgets[1:] = np.maximum(budgets[1:], min(8, total // threads))
        while int(budgets[1:].sum()) > total:  # tiny traces: the minimum made too many
            big = 1 + int(np.argmax(budgets[1:]))
            budgets[big] -= min(int(budgets[1:].sum()) - total, int(budgets[big]))
        budgets[0] = total - int(budgets[1:].sum())
        run = np.random.default_rng([seed, total])
        per_thread = [
            _thread(lib, k, int(n), run, _Body(style, balanced, sampled, i == 0, copies))
            for i, ((k, _), n) in enumerate(zip(plan, budgets, strict=True))
        ]
        cpu, wall = _times(per_thread, run, duration_us)
        per_thread = [(c[0], c[1], c[2][:0], c[3][:0], c[4][:0]) for c in per_thread]  # free deltas
        if not sampled:
            break
        per_thread, cpu, wall = sample(per_thread, cpu, wall, sampling_interval_us, run)
        got = sum(len(w) for w in wall)
        if got >= records or got == 0:
            break
        total = int(total * records / got * 1.15) + 100  # sample a longer run
    limit = records if sampled else None  # the sampler ran longer than needed: stop it
    shape = _Shape(
        clock=clock,
        style=style,
        pid=pid,
        version=version,
        limit=limit,
        chunk=chunk_records if order == "chunks" or overflow_records else None,
        thread_ids=thread_ids,
        capacity=overflow_records,
    )
    trace = _assemble(lib, plan, per_thread, cpu, wall, rng, shape)
    if sampled:
        trace.header = replace(
            trace.header, sampled=True, sampling_interval_us=float(sampling_interval_us)
        )
    return trace


@dataclass(frozen=True)
class _Body:
    """How one thread's events are made (see `generate`'s arguments)."""

    style: str
    balanced: bool
    sampled: bool
    main: bool
    copies: int  # copies of the app's methods (1: the catalogue as it is)


def _copies(lib: Library, methods: int | None) -> int:
    """How many copies of the app's methods make about `methods` distinct methods."""
    if methods is None:
        return 1
    used = np.zeros(len(lib.app), dtype=bool)
    used[lib.method] = True  # the methods of the call-tree templates, the ones copied
    app = int((used & lib.app).sum())
    return max(1, round((methods - int((used & ~lib.app).sum())) / max(app, 1)))


def _thread(
    lib: Library, kind: ThreadKind, budget: int, rng: np.random.Generator, how: _Body
) -> Cols:
    """The events of one thread (times as µs deltas), `budget` of them when possible."""
    style, balanced, sampled, main = how.style, how.balanced, how.sampled, how.main
    row = lib.catalog.rows.__getitem__
    # a sampler sees the whole stack from its first sample; ART reports most on-stack frames
    reported = balanced or sampled or (style == "art" and not kind.unreported)
    stack = [row(s) for s in (*kind.base, *kind.transient)] if reported else []
    prefix = _fixed(stack, 0)
    tail = columns([lib.tails[kind.key]])
    if balanced:
        suffix = _fixed([row(s) for s in reversed(kind.base)], 1, gap=5)
    elif main:
        suffix = _fixed([row(s) for s in STOP], 0, gap=3)
    else:
        suffix = _fixed([], 0)
    room = max(budget - len(prefix[0]) - len(tail[0]) - len(suffix[0]), 0)
    ids = draw(lib, kind.key, room, rng)
    index, inst = tile(lib, ids)
    if balanced:
        whole = np.cumsum(lib.length[ids]) <= room
        index, inst = index[whole[inst]], inst[whole[inst]]
    index, inst = index[:room], inst[:room]
    scale = rng.lognormal(0.0, 0.3, size=len(ids)).astype(np.float32)[inst]
    scale *= rng.uniform(0.75, 1.25, len(index)).astype(np.float32)
    cpu = (lib.cpu[index] * scale).astype(np.int64)  # truncation = floor: all positive
    method = lib.method[index]
    if how.copies > 1:  # each call tree runs in one copy of the app's classes
        copy = rng.integers(0, how.copies, len(ids)).astype(np.int32)[inst]
        method = method + np.where(lib.app[method], copy * len(lib.app), 0).astype(np.int32)
    body: Cols = (
        lib.action[index],
        method,
        cpu,
        np.maximum((lib.wall[index] * scale).astype(np.int64), cpu),
        lib.idle[index],
    )
    parts = [prefix, tail, body]
    if balanced and (pairs := (room - len(index)) // 2):
        fill = np.tile(np.array([0, 1]), pairs)
        parts.append(_cols(fill, np.full(2 * pairs, row(FILL)), 1 + fill))
    parts.append(suffix)
    out: Cols = tuple(np.concatenate([p[i] for p in parts]) for i in range(5))  # type: ignore[assignment]
    if balanced:
        out[0][out[0] == 2] = 1  # an exception unwinding is an ordinary exit here
        if budget < len(out[0]):  # too small for the frames it must close: leave it out
            out = tuple(c[:0] for c in out)  # type: ignore[assignment]
    return tuple(c[:budget] for c in out) if not balanced else out  # type: ignore[return-value]


def _cols(action: Col, method: Col, delta: I64) -> Cols:
    n = len(action)
    return (action.astype(np.uint8), method.astype(np.int32), delta, delta, np.zeros(n, bool))


def _fixed(rows: list[int], action: int, gap: int = 0) -> Cols:
    """Enters (or exits) of `rows` in order, `gap` µs apart."""
    n = len(rows)
    return _cols(np.full(n, action), np.array(rows, np.int64), np.full(n, gap, np.int64))


def _times(
    per_thread: list[Cols], rng: np.random.Generator, duration: int | None
) -> tuple[list[I64], list[I64]]:
    """Absolute µs times per thread: CPU from 0 at the thread's first event, wall from its start.

    Every thread's idle events share the wall time its calls leave unused, so all threads end
    near the same moment (the busiest thread's span, or `duration`).
    """
    starts = [0] + [int(x) for x in rng.integers(0, 3000, len(per_thread) - 1)]
    spans = [int(c[3].sum()) for c in per_thread]
    end = max(s + n for s, n in zip(starts, spans, strict=True))
    end = max(end, duration or 0)
    cpus, walls = [], []
    for (_, _, dcpu, dwall, idle), start, span in zip(per_thread, starts, spans, strict=True):
        dwall = dwall.copy()
        where = np.flatnonzero(idle)
        if len(where) and end > start + span:
            weight = rng.uniform(0.2, 1.8, len(where))
            extra = np.floor((end - start - span) * weight / weight.sum()).astype(np.int64)
            # one V1 time step must stay below 2^31 µs so readers can unwrap the u32 times
            dwall[where] += np.minimum(extra, (1 << 31) - dwall[where])
        cpu = np.cumsum(dcpu)
        wall = np.cumsum(dwall)
        cpus.append(cpu - (cpu[0] if len(cpu) else 0))
        walls.append(wall - (wall[0] if len(wall) else 0) + start)
    return cpus, walls


@dataclass(frozen=True)
class _Shape:
    """How the generated records are laid out and labelled (see `generate`'s arguments)."""

    clock: Clock
    style: str
    pid: int
    version: int | None
    limit: int | None  # keep the first records in time order (sampled runs)
    chunk: int | None  # per-thread chunks instead of global time order
    thread_ids: str
    capacity: int | None  # trace buffer size in records (overflow emulation)


def _assemble(
    lib: Library,
    plan: list[tuple[ThreadKind, str]],
    per_thread: list[Cols],
    cpus: list[I64],
    walls: list[I64],
    rng: np.random.Generator,
    shape: _Shape,
) -> Trace:
    """Interleave the threads by wall time (keeping the first `limit` records), build tables."""
    clock, style, pid, version = shape.clock, shape.style, shape.pid, shape.version
    limit, chunk = shape.limit, shape.chunk
    lens = np.array([len(c[0]) for c in per_thread], dtype=np.int64)
    wall = np.concatenate(walls)
    order = np.argsort(wall, kind="stable")[:limit]  # threads are sorted runs: a cheap merge
    overflow = False
    if chunk:
        order, overflow = flush_order(order, wall, lens, chunk, shape.capacity)
    wall = wall[order]
    thread = np.repeat(np.arange(len(plan), dtype=np.uint32), lens)[order]
    cpu = np.concatenate(cpus)[order]
    action = np.concatenate([c[0] for c in per_thread]).astype(np.uint8, copy=False)[order]
    method = np.concatenate([c[1] for c in per_thread]).astype(np.int32, copy=False)[order]
    used = np.flatnonzero(np.bincount(method, minlength=len(lib.catalog.specs)))
    remap = np.zeros(int(used[-1]) + 1 if len(used) else 0, dtype=np.int32)
    remap[used] = np.arange(len(used), dtype=np.int32)
    method = remap[method]  # keep only the methods that occur, in catalogue order
    specs = [_spec(lib, int(r)) for r in used]
    dalvik = style == "dalvik"
    n = len(used)
    if dalvik:
        ids = 0x4000_0000 + np.cumsum(rng.integers(2, 40, n).astype(np.uint64) * np.uint64(4))
    else:
        ids = np.arange(n, dtype=np.uint64) << np.uint64(2)
    methods = MethodTable(
        id=ids.astype(np.uint64),
        class_name=tuple(s[0].replace(".", "/") if dalvik else s[0] for s in specs),
        name=tuple(s[1] for s in specs),
        signature=tuple(s[2] for s in specs),
        source_file=tuple(s[3] for s in specs),
        line=np.array([s[4] if dalvik else -1 for s in specs], dtype=np.int32),
        declared=np.ones(n, dtype=bool),
    )
    seen = np.full(len(plan), len(order), dtype=np.int64)
    np.minimum.at(seen, thread, np.arange(len(order), dtype=np.int64))
    rank = np.argsort(np.argsort(seen, kind="stable"), kind="stable")
    if dalvik:  # Dalvik's internal ids: main is 1, the runtime's own threads take 2-4
        tids = np.where(np.arange(len(plan)) == 0, 1, np.arange(len(plan)) + 4)
    elif shape.thread_ids == "tid":  # Linux tids: main's is the pid, later threads count up
        tids = pid + np.r_[0, np.cumsum(rng.integers(3, 40, len(plan) - 1))]
    else:
        tids = rank + 1
    threads = ThreadTable(id=tids.astype(np.int64), name=tuple(name for _, name in plan))
    # `global` (early Dalvik) is a common clock across threads: wall time
    has_cpu, has_wall = clock in ("dual", "thread-cpu"), clock in ("dual", "wall", "global")
    elapsed = int(wall.max() - wall.min()) if len(wall) else 0  # µs, before the ns scaling
    events = EventTable(
        thread=thread.astype(thread_index_dtype(len(plan))),
        method=method.astype(np.int32),
        action=action,
        cpu=np.multiply(cpu, 1000, out=cpu) if has_cpu else None,  # µs -> ns in place
        wall=np.multiply(wall, 1000, out=wall) if has_wall else None,
    )
    version = version or (3 if clock == "dual" else 2)
    options = {
        "data-file-overflow": "true" if overflow else "false",
        "clock": clock,
        "elapsed-time-usec": str(elapsed),
        "num-method-calls": str(len(action)),
        "clock-call-overhead-nsec": str(int(rng.integers(300, 1200))),
        "vm": style,
    }
    if not dalvik:
        options["pid"] = str(pid)
    start = int(rng.integers(10**9, 10**11)) if not dalvik else 1_300_000_000_000_000
    header = Header(
        variant="regular",
        version=version,
        clock=clock,
        key_version=version,
        vm=style,
        pid=None if dalvik else pid,
        start_time_us=start,
        elapsed_ns=elapsed * 1000,
        overflow=overflow,
        options=options,
        record_size={1: 9, 2: 10, 3: 14}.get(version),
    )
    return Trace(header=header, threads=threads, methods=methods, events=events)


def _spec(lib: Library, row: int) -> tuple[str, str, str, str, int]:
    """The catalogue's method `row`; rows past the catalogue are copies of an app method, in
    a package of their own (`com.example.app.feed.v3.FeedAdapter`)."""
    n = len(lib.catalog.specs)
    cls, name, sig, source, line = lib.catalog.specs[row % n]
    if row < n:
        return cls, name, sig, source, line
    pkg, _, simple = cls.rpartition(".")
    return f"{pkg}.v{row // n}.{simple}", name, sig, source, line


def make_demo(path: str | Path) -> Path:
    """Write the bundled demo trace: v3 dual-clock regular, ART style, 30,000 records; gzipped
    (about 150 kB, a third of the raw size) when `path` ends in .gz
    (`python -m traceview.synth --demo [PATH]`)."""
    import gzip
    import io

    from traceview.writer import write

    # 30k records keep the demo under half of the wheel (the 150k of before made it 77%)
    trace = generate(records=30_000, threads=10, seed=2026, clock="dual")
    path = Path(path)
    if path.suffix != ".gz":
        return write(trace, path, variant="regular")[0]
    raw = io.BytesIO()
    write(trace, raw, variant="regular")
    # mtime=0 and no file name in the header: the same trace gives the same bytes; written
    # beside and renamed, so a failure leaves no half-written demo
    part = path.with_name(path.name + ".part")
    part.write_bytes(gzip.compress(raw.getvalue(), compresslevel=9, mtime=0))
    part.replace(path)
    return path
