"""The whole-trace profile of a trace whose records are never kept, fed by a reader chunk by
chunk (readers/stream.py): what `traceview dmtracedump` and `-r` need of a large V1 trace, in
the memory of one chunk instead of the event columns.

Two reads of the file: the first (`FirstLook`) counts each thread's records and finds the
frames open when tracing began (`kernels.pairing.count_more`); the second (`Pass`) feeds every
chunk to the direct profile's compiled pass (kernels/direct.py) on each worker. Both work on
a chunk on threads of their own while the reader decodes the next (`Behind`). The result
equals `direct_profile` of the trace read whole (tests/analysis/test_streamed.py). A thread
whose exit names another method needs its records for the numpy repair: `Pass.profile` then
says None, and the command reads the trace whole.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial

import numpy as np
import numpy.typing as npt

from traceview.analysis import walk
from traceview.analysis.direct import (
    Found,
    counted_profile,
    open_at_start,
)
from traceview.analysis.profile import Profile
from traceview.model import EventTable, Trace

I64 = npt.NDArray[np.int64]
_NONE = np.zeros(0, dtype=np.int64)


class Behind:
    """Work on one chunk while the reader decodes the next (its columns stay valid until the
    next chunk but one, `RecordDecoder`): each chunk's jobs start once the last chunk's are
    done, on threads of their own."""

    def __init__(self, threads: int) -> None:
        self.pool = ThreadPoolExecutor(threads, thread_name_prefix="traceview-pass")
        self.pending: list[Future[object]] = []

    def start(self, jobs: list[Callable[[], object]]) -> None:
        """Wait for the last chunk's jobs, then start these."""
        self.wait()
        self.pending = [self.pool.submit(job) for job in jobs]

    def wait(self) -> list[object]:
        """The last chunk's jobs' results, once done (their errors raised here)."""
        done = [job.result() for job in self.pending]
        self.pending = []
        return done

    def close(self) -> None:
        """Wait, then let the threads go."""
        self.wait()
        self.pool.shutdown()


def stream_workers(workers: int | None) -> int:
    """The second read's workers: `workers`, else TRACEVIEW_WORKERS when set, else one on a
    machine of two cores or fewer (the reader decodes each chunk's clocks on threads of its
    own meanwhile: a second worker only took turns with them, 0.80 s against 0.94 s wall and
    0.97 s against 1.14 s of CPU for a 10M-record dmtracedump, benchmarks/RESULTS.md), else
    `walk.pass_workers`' default."""
    if workers is None and "TRACEVIEW_WORKERS" not in os.environ and (os.cpu_count() or 1) <= 2:
        return 1
    return walk.pass_workers(workers)


class FirstLook:
    """The first read's sink: each thread's counts (`walk.counts_of`' rows) and the
    exits that take a thread's balance to a new lowest (its frames open when tracing began)."""

    def __init__(self) -> None:
        self.counts = walk.new_counts(0)
        self.lows: list[I64] = []
        self._room = np.zeros((0, 2), dtype=np.int64)
        self._behind = Behind(1)

    def __call__(self, offset: int, ev: EventTable) -> bool:
        """Count the chunk of records `offset`...; always goes on."""
        self._keep(self._behind.wait())
        if not len(ev):
            return True
        rows = int(ev.thread.max()) + 1
        if rows > len(self.counts):
            self.counts = np.concatenate([self.counts, walk.new_counts(rows - len(self.counts))])
        if len(self._room) < len(ev):
            self._room = np.zeros((len(ev), 2), dtype=np.int64)
        events, counts, room = (ev.thread, ev.action, ev.method), self.counts, self._room
        self._behind.start([lambda: walk.count_more(events, offset, counts, room)])
        return True

    def _keep(self, found: list[object]) -> None:
        for n in found:
            assert isinstance(n, int)
            if n:
                self.lows.append(self._room[:n].copy())

    def result(self, n_threads: int) -> tuple[I64, tuple[I64, I64]]:
        """The counts of `n_threads` thread rows, and the methods of the frames open when
        tracing began with their offsets (`direct.open_at_start`)."""
        self._keep(self._behind.wait())
        self._behind.close()
        counts = np.concatenate([self.counts, walk.new_counts(n_threads - len(self.counts))])
        lows = np.concatenate(self.lows) if self.lows else np.zeros((0, 2), dtype=np.int64)
        return counts, open_at_start(lows, counts)


class Pass:
    """The second read's sink: the direct profile's compiled pass of each worker (its threads
    split by records, as `direct_profile` splits them), fed every chunk: each worker reads
    every record and counts its threads' (cheaper than handing each its rows: at 10M
    records, two workers took 0.10–0.17 s that way against 0.14–0.22 s, benchmarks/RESULTS.md)."""

    def __init__(
        self, counts: I64, synth: tuple[I64, I64], n_methods: int, workers: int | None = None
    ) -> None:
        self.counts, self.n_methods = counts, n_methods
        n = stream_workers(workers)
        groups = walk.split_threads(counts[:, 0], n)
        self.walks = [walk.start_walk(counts, m, synth, n_methods) for m in groups]
        self.tables = [walk.first_table() for _ in groups]
        self.seconds = [0.0] * len(groups)
        self._behind = Behind(len(groups))

    def __call__(self, offset: int, ev: EventTable) -> bool:
        """Count the chunk of records `offset`... on every worker; always goes on."""
        times = [*(ev.time(c) for c in ev.clocks), _NONE, _NONE]  # the clocks kept
        columns = walk.Clocks(times[0], times[1], len(ev.clocks))
        events = (ev.thread, ev.action, ev.method)

        def count(i: int) -> None:
            began = time.perf_counter()
            self.tables[i] = walk.feed(
                events, columns, offset, self.walks[i], self.tables[i], self.n_methods
            )
            self.seconds[i] += time.perf_counter() - began

        self._behind.start([partial(count, i) for i in range(len(self.walks))])
        return True

    def profile(self, trace: Trace, scale: dict[str, int] | None = None) -> Profile | None:
        """The profile of `trace` (the second read's tables, its clocks those kept) from what
        the workers counted; None when a thread's exit named another method (its repair needs
        the records). `scale`: what the reader multiplied a clock's times by once it had read
        them all (after the chunks were counted: the wall-unit bug, readers/v1/tables.py)."""
        self._behind.close()
        clocks = trace.clocks
        found: list[Found] = [
            (*walk.finish(w, t, len(clocks)), s)
            for w, t, s in zip(self.walks, self.tables, self.seconds, strict=True)
        ]
        if any(f[2][:, 1].any() for f in found):
            return None
        ends = np.sum([w.threads.ends for w in self.walks], axis=0)
        totals = {c: ends[:, 2 + i] - ends[:, i] for i, c in enumerate(clocks)}
        for i, c in enumerate(clocks):
            factor = (scale or {}).get(c, 1)
            if factor != 1:
                totals[c] *= factor
                for _, sums, _, _ in found:
                    sums[:, 1 + i] *= factor
        return counted_profile(trace, clocks, self.counts, found, totals, [])

    def open_calls(self) -> I64:
        """Per thread row, the calls still open at the end (closed by its last record)."""
        return np.sum([w.threads.out[:, 2] for w in self.walks], axis=0)  # type: ignore[no-any-return]
