"""The compiled passes over a trace's records, driven: the direct profile's (kernels/direct.py;
for analysis/direct.py and analysis/streamed.py) and the call table's pairing
(kernels/pairing.py; for calls.build_calls). Their stacks, tables and per-thread state are
made here with numpy and their loops run as native code (kernels/native.py), so counting a
profile or building a call table never imports numba. Each pass may be split between workers
by threads (`split_threads`), each reading every record and keeping its own threads.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.kernels.columns import (
    Calls,
    Clocks,
    Events,
    Pairing,
    Stacks,
    Table,
    Threads,
    Walk,
)
from traceview.analysis.kernels.native import Native
from traceview.analysis.workers import default_workers, parallel_map

I64 = npt.NDArray[np.int64]
Ints = npt.NDArray[Any]

COUNTS_LIMIT = 1 << 24  # threads x methods open-call counters per worker; past it, searched
FIRST_EDGES = 1024
HALVES = 1 << 22  # records: counted as two halves at once past this many
_NO_LOWS = np.zeros((0, 2), dtype=np.int64)

count_more = Native("pairing", "count_more")
_count = Native("direct", "count")
_close = Native("direct", "close")
_refill = Native("hashing", "refill")
_pair = Native("pairing", "pair")
_mark_recursive = Native("pairing", "mark_recursive")

__all__ = [
    "COUNTS_LIMIT",
    "Clocks",
    "count_more",
    "counts_of",
    "feed",
    "finish",
    "first_table",
    "grown",
    "joined",
    "new_counts",
    "pair",
    "pass_workers",
    "split_threads",
    "start_walk",
]


def pass_workers(workers: int | None) -> int:
    """The workers of a compiled pass: `workers`, else TRACEVIEW_WORKERS when set, else two
    on a machine with two cores."""
    if workers is None and "TRACEVIEW_WORKERS" not in os.environ:
        workers = min(2, os.cpu_count() or 1)
    return default_workers() if workers is None else max(1, workers)


def split_threads(records: I64, n: int) -> list[npt.NDArray[np.bool_]]:
    """The threads with records split into at most `n` groups of about equal records, as
    masks over the thread rows (biggest first, each to the lightest group so far)."""
    groups = [np.zeros(len(records), dtype=bool) for _ in range(n)]
    load = [0] * n
    for t in np.argsort(-records, kind="stable").tolist():
        if records[t] == 0:
            break
        g = load.index(min(load))
        groups[g][t] = True
        load[g] += int(records[t])
    return [g for g, size in zip(groups, load, strict=True) if size] or groups[:1]


def pair(
    events: Events,
    counts: I64,
    rows: tuple[I64, I64, Ints],
    calls: Calls,
    n_methods: int,
    mine: npt.NDArray[np.bool_],
) -> Pairing:
    """Pair the records of the threads in `mine` into their rows of `calls` and flag their
    recursive calls (`kernels.pairing.pair`, `mark_recursive`); `rows`: each thread's first
    row, where its part of the stack starts, and the stack. Returns the pass's state, whose
    `skip & mine` are the threads whose exit named another method (left to the repair)."""
    start, stack_at, stack = rows
    n = len(counts)
    state = Pairing(~mine, *(np.zeros(n, dtype=np.int64) for _ in range(4)))
    _pair(events, counts, start, stack_at, stack, calls, state)
    _mark_recursive(calls, start, stack_at, state.skip, stack, np.zeros(n_methods, np.int32))
    return state


def new_counts(n_threads: int) -> I64:
    """`counts_of`' rows before any record."""
    counts = np.zeros((n_threads, 6), dtype=np.int64)
    counts[:, 4:] = -1
    return counts


def counts_of(events: tuple[Ints, Ints, Ints], n_threads: int) -> I64:
    """Per thread row, `(records, enters, lowest, highest, first, last)` of `events` (thread,
    action, method): the lowest and highest running balance of enters over exits, the first
    and last event row (-1 without records), as `kernels.pairing.count_more` counts them.
    Past `HALVES` records on two workers, the records' halves are counted at once and joined
    (`joined`)."""
    n = len(events[0])
    if n < HALVES or pass_workers(None) < 2:
        return _counted(events, 0, n_threads)
    half = n // 2
    parts = [tuple(c[:half] for c in events), tuple(c[half:] for c in events)]
    found = parallel_map(lambda i: _counted(parts[i], i * half, n_threads), range(2), 2)
    return joined(found[0], found[1])


def _counted(events: tuple[Ints, ...], offset: int, n_threads: int) -> I64:
    """The counts of records `offset`... (`events` their columns)."""
    counts = new_counts(n_threads)
    count_more(events, offset, counts, _NO_LOWS)
    return counts


def joined(first: I64, then: I64) -> I64:
    """The counts of records counted as two runs in file order, `first` then `then`."""
    out = first.copy()
    balance = 2 * first[:, 1] - first[:, 0]  # enters minus exits of the first run
    out[:, :2] += then[:, :2]
    np.minimum(first[:, 2], balance + then[:, 2], out=out[:, 2])
    np.maximum(first[:, 3], balance + then[:, 3], out=out[:, 3])
    out[:, 4] = np.where(first[:, 0] > 0, first[:, 4], then[:, 4])
    out[:, 5] = np.where(then[:, 0] > 0, then[:, 5], first[:, 5])
    return out


def start_walk(
    counts: I64, mine: npt.NDArray[np.bool_], synth: tuple[I64, I64], n_methods: int
) -> Walk:
    """A worker's pass over the threads marked in `mine` before their first record (counts:
    `counts_of` every record; synth: the methods of the frames open when tracing began and
    their offsets, `direct.open_at_start`). Each thread with records gets a slot and room on
    the stacks for its deepest stack; with few enough threads x methods, each thread counts
    its open calls per method (else its stack is searched)."""
    ours = mine & (counts[:, 0] > 0)
    n_slots = int(np.count_nonzero(ours))
    slot_of = np.full(len(counts), -1, dtype=np.int64)
    slot_of[ours] = np.arange(n_slots)
    base = np.zeros(n_slots + 1, dtype=np.int64)  # each slot's part of the stacks
    np.cumsum(counts[ours, 3] - counts[ours, 2], out=base[1:])
    height = int(base[-1])
    cursor = np.zeros(6, dtype=np.int64)  # see `Walk`
    cursor[4] = -int(counts[ours, 2].sum())
    dense = int(np.count_nonzero(mine)) * n_methods <= COUNTS_LIMIT
    stacks = Stacks(
        base,
        np.zeros(n_slots, dtype=np.int64),
        np.empty(height, dtype=np.int64),
        np.empty(height, dtype=np.bool_),
        np.empty(height, dtype=np.int64),
        np.zeros(height, dtype=np.int64),
        np.zeros(height, dtype=np.int64),
        np.zeros(n_slots * n_methods if dense else 0, dtype=np.int32),
    )
    end = np.array([np.iinfo(np.int64).max], dtype=np.int64)
    marks = np.sort(np.concatenate([counts[ours, 4], counts[ours, 5], end]))
    out = np.zeros((len(counts), 4), dtype=np.int64)  # calls, failed, open, unroll
    ends = np.zeros((len(counts), 4), dtype=np.int64)
    threads = Threads(counts, synth[0], synth[1], slot_of, out, ends, marks)
    return Walk(threads, stacks, cursor)


def first_table() -> Table:
    """An empty edge table: rows (key, thread) and sums (calls, time on each clock)."""
    return Table(
        np.full(2 * FIRST_EDGES, -1, dtype=np.int64),
        np.empty((FIRST_EDGES, 2), dtype=np.int64),
        np.zeros((FIRST_EDGES, 3), dtype=np.int64),
    )


def feed(
    events: tuple[Ints, Ints, Ints],
    clocks: Clocks,
    offset: int,
    walk: Walk,
    table: Table,
    n_methods: int,
) -> Table:
    """Count the next records (events: thread, action, method columns of records `offset`...
    of the trace, `clocks` their times) into `table`; returns the table (grown when full)."""
    cursor = walk.cursor
    cursor[1] = 0
    end = len(events[0])
    while True:
        _count(events, clocks, offset, walk, table, n_methods)
        if cursor[1] >= end and cursor[4] == 0:
            return table
        table = grown(table, int(cursor[0]))


def grown(table: Table, k: int) -> Table:
    """`table` (holding `k` rows) with twice the room, its slots rebuilt: `kernels.hashing.grown`
    for a native pass, which may not allocate (the same rehash, `refill`)."""
    cap = 2 * len(table.keys)
    more = Table(
        np.full(2 * cap, -1, dtype=np.int64),
        np.empty((cap, table.keys.shape[1]), dtype=np.int64),
        np.zeros((cap, table.sums.shape[1]), dtype=np.int64),
    )
    more.keys[:k] = table.keys[:k]
    more.sums[:k] = table.sums[:k]
    _refill(more.slots, more.keys, k)
    return more


def finish(walk: Walk, table: Table, n_clocks: int) -> tuple[I64, I64, I64]:
    """Close what is still open by each thread's last record; returns the edges' (key,
    thread) rows and sums (calls, time on each clock), and per thread `(calls, failed, open
    at the end, exited by an unroll)`."""
    _close(walk, table, n_clocks)
    k = int(walk.cursor[0])
    return table.keys[:k].copy(), table.sums[:k].copy(), walk.threads.out
