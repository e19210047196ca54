"""Build small `Trace` objects by hand for tests: a list of events in, a validated Trace out.

    make_trace([
        (1, "enter", "com.a.Foo.run", 0, 0),
        (1, "exit",  "com.a.Foo.run", 5, 7),
    ], clock="dual")

Each event is `(thread_id, action, "pkg.Class.method", cpu_us, wall_us)`; for a single-clock
trace give the one time in the clock's slot and None in the other. Methods get ids 4, 8, 12...
in first-seen order (or pass `methods=` to fix the order); thread names are `thread-<id>`
unless `names=` says otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TypedDict

import numpy as np

from traceview.model import (
    Clock,
    EventTable,
    Header,
    MethodTable,
    ThreadTable,
    Trace,
    thread_index_dtype,
)

ACTIONS = {"enter": 0, "exit": 1, "unroll": 2}
Event = tuple[int, str, str, int | None, int | None]


class MakeTraceArgs(TypedDict, total=False):
    """`make_trace`'s keyword arguments."""

    clock: Clock
    methods: Sequence[str]
    names: dict[int, str] | None
    version: int


def split_name(full: str) -> tuple[str, str, str]:
    """`pkg.Class.method(sig)` -> (class, method, signature)."""
    sig = ""
    if "(" in full:
        full, sig = full[: full.index("(")], full[full.index("(") :]
    cls, _, name = full.rpartition(".")
    return cls, name, sig or "()V"


def make_trace(
    events: Iterable[Event],
    *,
    clock: Clock = "dual",
    methods: Sequence[str] = (),
    names: dict[int, str] | None = None,
    version: int = 3,
) -> Trace:
    """A validated Trace holding exactly `events` (times in µs)."""
    evs = list(events)
    order: list[str] = list(methods)
    for _, _, m, _, _ in evs:
        if m not in order:
            order.append(m)
    tids: list[int] = []
    for t, *_ in evs:
        if t not in tids:
            tids.append(t)
    names = names or {}
    threads = ThreadTable(
        id=np.array(tids, dtype=np.int64),
        name=tuple(names.get(t, f"thread-{t}") for t in tids),
    )
    parts = [split_name(m) for m in order]
    meths = MethodTable(
        id=np.array([4 * (i + 1) for i in range(len(order))], dtype=np.uint64),
        class_name=tuple(p[0] for p in parts),
        name=tuple(p[1] for p in parts),
        signature=tuple(p[2] for p in parts),
        source_file=tuple("" for _ in parts),
        line=np.full(len(order), -1, dtype=np.int32),
        declared=np.ones(len(order), dtype=bool),
    )
    has_cpu = clock in ("dual", "thread-cpu", "global")
    has_wall = clock in ("dual", "wall")
    thread_col = np.array([tids.index(e[0]) for e in evs], dtype=thread_index_dtype(len(tids)))
    cpu = np.array([(e[3] or 0) * 1000 for e in evs], dtype=np.int64) if has_cpu else None
    wall = np.array([(e[4] or 0) * 1000 for e in evs], dtype=np.int64) if has_wall else None
    table = EventTable(
        thread=thread_col,
        method=np.array([order.index(e[2]) for e in evs], dtype=np.int32),
        action=np.array([ACTIONS[e[1]] for e in evs], dtype=np.uint8),
        cpu=cpu,
        wall=wall,
    )
    header = Header(
        variant="regular",
        version=version,
        clock=clock,
        key_version=version,
        vm="art",
        options={"clock": clock, "vm": "art"},
        record_size={1: 9, 2: 10, 3: 14}.get(version),
    )
    trace = Trace(header=header, threads=threads, methods=meths, events=table)
    trace.validate()
    return trace


def many_threads(n: int, interleaved: bool, open_every: int = 5) -> Trace:
    """`n` threads, each calling A then B inside it (records interleaved across threads or
    grouped by thread), every `open_every`-th thread (0: none) left with B open at the end."""
    step = np.array([0, 1, 1, 0])
    method = np.tile(step, n)
    action = np.tile(np.array([0, 0, 1, 1]), n)
    thread = np.repeat(np.arange(n), 4)
    keep = np.ones(4 * n, dtype=bool)
    if open_every:
        keep &= ~((np.arange(4 * n) % 4 >= 2) & (thread % open_every == 0))
    if interleaved:
        order = np.lexsort((thread, np.arange(4 * n) % 4))
        method, action, thread, keep = method[order], action[order], thread[order], keep[order]
    method, action, thread = method[keep], action[keep], thread[keep]
    t = np.arange(len(thread), dtype=np.int64) * 1000
    wide: type[np.unsignedinteger[Any]] = np.uint16 if n <= 0xFFFF else np.uint32
    events = EventTable(
        thread=thread.astype(wide),
        method=method.astype(np.int32),
        action=action.astype(np.uint8),
        cpu=t // 2,
        wall=t,
    )
    methods = MethodTable(
        id=np.array([4, 8], dtype=np.uint64),
        class_name=("a.A", "a.B"),
        name=("run", "go"),
        signature=("()V", "()V"),
        source_file=("", ""),
        line=np.full(2, -1, dtype=np.int32),
        declared=np.ones(2, dtype=bool),
    )
    header = Header(variant="regular", version=3, clock="dual", options={"clock": "dual"})
    ids = np.arange(1, n + 1, dtype=np.int64)
    threads = ThreadTable(id=ids, name=tuple(f"t{i}" for i in range(n)))
    trace = Trace(header=header, threads=threads, methods=methods, events=events)
    trace.validate()
    return trace
