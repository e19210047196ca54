"""The call table: every enter/exit pair of a trace as one row, built from the events by a compiled
pass (kernels/pairing.py; the numpy pairing of analysis/pairing.py repairs unmatched threads).

`build_calls(trace) -> CallTable` is the first step of every analysis (profile, trees, the
viewer's timeline). Rows are in depth-first pre-order within each thread, threads contiguous in
thread-row order, so the subtree of row `i` is the slice `[i, subtree_end[i])`.

Policies for unbalanced stacks (format.md (c) 1-4; docs/engine.md says more):

* An exit with an empty stack (tracing began inside that method) becomes a call whose entry is
  synthesised at the thread's first timestamp (flag `SYNTH_ENTRY`); the calls that already
  finished at that level become its children, exactly as if its enter had been recorded first.
* Calls still open at the end are closed at the thread's last timestamp (flag `OPEN`).
* Unroll (action 2) is an exit (flag `UNROLL`).
* An exit naming a method deeper in the stack closes the frames above it at that time (flag
  `FORCED_EXIT`) and then that method. An exit naming a method that is not on a non-empty stack
  is dropped (its time goes to the frame on top, like every other gap).

Every start/end time is the time of some event, so the table stores event rows
(`enter_event`, `exit_event`) and derives the time columns on demand. Repairs are counted in
`CallTable.diagnostics`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from traceview.analysis import walk
from traceview.analysis.kernels.columns import Calls, Events
from traceview.analysis.kernels.native import Native
from traceview.analysis.pairing import FORCED_EXIT as FORCED_EXIT  # the call flags
from traceview.analysis.pairing import OPEN as OPEN
from traceview.analysis.pairing import RECURSIVE as RECURSIVE
from traceview.analysis.pairing import SYNTH_ENTRY as SYNTH_ENTRY
from traceview.analysis.pairing import UNROLL as UNROLL
from traceview.analysis.pairing import Paired, pair_thread, repair_sequence
from traceview.analysis.timecols import thread_dtype
from traceview.analysis.workers import parallel_map
from traceview.model import Diagnostic, Trace, method_dtype

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
IntArray = npt.NDArray[np.signedinteger]
G = TypeVar("G", bound=np.generic)
_exclusive_times = Native("exclusive", "exclusive_times")  # native code: no numba to import


def search_starts(
    times: I64, enter_event: npt.NDArray[np.integer], lo: int, hi: int, t: int
) -> int:
    """The first row of `[lo, hi)` (one thread's calls: their starts never decrease) whose
    start `times[enter_event[row]]` is at or after `t`, else `hi`: `np.searchsorted` of the
    starts without making their column, one time read per step."""
    while lo < hi:
        mid = (lo + hi) // 2
        if times[enter_event[mid]] < t:
            lo = mid + 1
        else:
            hi = mid
    return lo


def gather(
    col: npt.NDArray[G], index: npt.NDArray[np.integer], chunk: int = 1 << 16
) -> npt.NDArray[G]:
    """`col[index]` in slices: numpy widens a narrow index to intp before gathering, and a
    slice's widened copy stays small (and in the cache) where the whole index's would not."""
    out = np.empty(len(index), dtype=col.dtype)
    for at in range(0, len(index), chunk):
        np.take(col, index[at : at + chunk], out=out[at : at + chunk])
    return out


@dataclass(frozen=True, eq=False)
class CallTable:
    """One row per call. Stored columns (equal length, pre-order per thread):

    `method` int32 method row; `depth` int16, or int32 for stacks past 32,767 frames (0 for
    roots); `parent` int32/int64 row of the
    caller (-1 for roots, `parent[i] < i`); `subtree_end` (the subtree of `i` is
    `[i, subtree_end[i])`); `enter_event`/`exit_event` the event rows whose times are the
    call's start and end; `flags` uint8 (`RECURSIVE | SYNTH_ENTRY | OPEN | UNROLL |
    FORCED_EXIT`). `thread_ranges[t] = (first_row, end_row)` for thread row `t`.
    Derived on demand: `thread`, `start_cpu`, `end_cpu`, `start_wall`, `end_wall`,
    `incl(clock)`, `excl(clock)` and the `incl_*`/`excl_*` properties (None for a missing clock).
    """

    trace: Trace
    method: npt.NDArray[np.signedinteger[Any]]  # int16 below 32,768 methods, else int32
    depth: I32
    parent: IntArray
    subtree_end: IntArray
    enter_event: IntArray
    exit_event: IntArray
    flags: npt.NDArray[np.uint8]
    thread_ranges: I64
    diagnostics: list[Diagnostic] = field(default_factory=list)
    thread_events: I64 | None = None  # (first, last) event row per thread, -1 if none
    thread_records: I64 | None = None  # records per thread row, when the pairing counted them

    def __len__(self) -> int:
        return len(self.method)

    @property
    def clocks(self) -> tuple[str, ...]:
        """The clocks present, of ("cpu", "wall")."""
        return self.trace.clocks

    @cached_property
    def columns(self) -> Calls:
        """The stored columns, grouped as the compiled kernels take them."""
        return Calls(
            self.method,
            self.depth,
            self.parent,
            self.subtree_end,
            self.enter_event,
            self.exit_event,
            self.flags,
        )

    @cached_property
    def thread(self) -> npt.NDArray[np.unsignedinteger]:
        """Thread row of every call (expanded from `thread_ranges`)."""
        sizes = self.thread_ranges[:, 1] - self.thread_ranges[:, 0]
        dtype = thread_dtype(self.trace.events)
        return np.repeat(np.arange(len(sizes), dtype=dtype), sizes)

    def start(self, clock: str, rows: slice | IntArray | None = None) -> I64:
        """Entry times on `clock` (ns), for all rows or `rows`."""
        col = self.trace.events.time(clock)
        return col[self.enter_event if rows is None else self.enter_event[rows]]

    def end(self, clock: str, rows: slice | IntArray | None = None) -> I64:
        """Exit times on `clock` (ns), for all rows or `rows`."""
        col = self.trace.events.time(clock)
        return col[self.exit_event if rows is None else self.exit_event[rows]]

    def incl(self, clock: str, rows: slice | None = None) -> I64:
        """Inclusive time of each call on `clock`: end - start (ns)."""
        col = self.trace.events.time(clock)
        sel = slice(None) if rows is None else rows
        out = col[self.exit_event[sel]]
        out -= col[self.enter_event[sel]]
        return out

    def excl(self, clock: str, rows: slice | None = None, incl: I64 | None = None) -> I64:
        """Exclusive time of each call: inclusive minus its children's inclusive (ns).

        `rows` must be a whole number of threads (e.g. a `thread_ranges` slice) or one call's
        subtree, so that no child is cut from its parent (in any other range, the calls whose
        subtrees it holds whole are right); `incl` may pass the already computed inclusive
        times.
        """
        lo, hi, _ = (slice(0, len(self)) if rows is None else rows).indices(len(self))
        given = np.zeros(0, dtype=np.int64) if incl is None else incl.astype(np.int64, copy=False)
        col = self.trace.events.time(clock)  # read per call: no call-sized temporaries
        out = np.zeros(hi - lo, dtype=np.int64)
        _exclusive_times(self.columns, lo, hi, col, given, out)
        return out

    def _time(self, clock: str, end: bool) -> I64 | None:
        if clock not in self.clocks:
            return None
        return self.end(clock) if end else self.start(clock)

    @property
    def start_cpu(self) -> I64 | None:
        """Thread-CPU ns at entry (None when the trace has no CPU clock)."""
        return self._time("cpu", False)

    @property
    def end_cpu(self) -> I64 | None:
        """Thread-CPU ns at exit."""
        return self._time("cpu", True)

    @property
    def start_wall(self) -> I64 | None:
        """Wall ns at entry (None when the trace has no wall clock)."""
        return self._time("wall", False)

    @property
    def end_wall(self) -> I64 | None:
        """Wall ns at exit."""
        return self._time("wall", True)

    @property
    def incl_cpu(self) -> I64 | None:
        """Inclusive thread-CPU ns per call."""
        return self.incl("cpu") if "cpu" in self.clocks else None

    @property
    def excl_cpu(self) -> I64 | None:
        """Exclusive thread-CPU ns per call."""
        return self.excl("cpu") if "cpu" in self.clocks else None

    @property
    def incl_wall(self) -> I64 | None:
        """Inclusive wall ns per call."""
        return self.incl("wall") if "wall" in self.clocks else None

    @property
    def excl_wall(self) -> I64 | None:
        """Exclusive wall ns per call."""
        return self.excl("wall") if "wall" in self.clocks else None

    def thread_span(self, t: int, clock: str) -> tuple[int, int]:
        """(first, last) timestamp of thread row `t` on `clock`; (0, 0) without events."""
        first, last = self._thread_events[t]
        if first < 0:
            return (0, 0)
        col = self.trace.events.time(clock)
        return int(col[first]), int(col[last])

    def thread_total(self, t: int, clock: str) -> int:
        """Last minus first timestamp of thread `t` on `clock` (dmtracedump's thread time)."""
        first, last = self.thread_span(t, clock)
        return last - first

    @cached_property
    def _thread_events(self) -> I64:
        """(first, last) event row of each thread, -1 for threads without events."""
        if self.thread_events is not None:
            return self.thread_events
        ev = self.trace.events
        n = len(self.trace.threads)
        out = np.full((n, 2), -1, dtype=np.int64)
        if len(ev):
            rows = np.arange(len(ev), dtype=np.int64)
            first = np.full(n, len(ev), dtype=np.int64)
            np.minimum.at(first, ev.thread, rows)
            last = np.full(n, -1, dtype=np.int64)
            np.maximum.at(last, ev.thread, rows)
            seen = last >= 0
            out[seen, 0] = first[seen]
            out[seen, 1] = last[seen]
        return out

    def validate(self) -> None:
        """Check the table's invariants; raise AssertionError naming the broken one."""
        from traceview.analysis.checks import check_calls

        check_calls(self)


def build_calls(trace: Trace) -> CallTable:
    """Reconstruct every call of `trace` (see the module docstring for the policies).

    A compiled pass pairs every thread's records at once, in file order, straight into the
    table's columns (kernels/pairing.py, run as native code by analysis/walk.py on two workers
    splitting the threads: each thread's rows and stack sized exactly by a first pass, so no
    per-thread temporaries); a thread whose exit names another method than its enter is paired
    again by `pair_records`, which repairs the sequence, and put in its place.
    """
    ev = trace.events
    n_threads = len(trace.threads)
    idx_dtype = np.int32 if len(ev) < 2**31 - 1 else np.int64
    events = Events(ev.thread, ev.action, ev.method)
    counts = walk.counts_of(events, n_threads)
    synth = -counts[:, 2]
    sizes = synth + counts[:, 1]  # calls per thread: its enters and the synthesised ones
    start = np.zeros(n_threads + 1, dtype=np.int64)
    np.cumsum(sizes, out=start[1:])
    stack_at = np.zeros(n_threads + 1, dtype=np.int64)
    np.cumsum(synth + counts[:, 3], out=stack_at[1:])  # deepest stack per thread
    height = int((synth + counts[:, 3]).max()) if n_threads else 0  # the deepest stack
    out = _Columns(int(start[-1]), idx_dtype, depth_dtype(height), method_dtype(len(trace.methods)))
    c = out.cols
    stack = np.empty(int(stack_at[-1]), dtype=c["parent"].dtype)
    columns = Calls._make(c[name] for name in Calls._fields)
    n = walk.pass_workers(None)
    groups = walk.split_threads(counts[:, 0], n)
    layout = (start, stack_at, stack)
    one = partial(walk.pair, events, counts, layout, columns, len(trace.methods))
    passes = parallel_map(one, groups, n)
    failed = np.zeros(n_threads, dtype=bool)
    still_open = np.zeros(n_threads, dtype=np.int64)
    unroll = np.zeros(n_threads, dtype=np.int64)
    for mine, done in zip(groups, passes, strict=True):
        failed |= done.skip & mine
        still_open += done.still_open
        unroll += done.unroll
    del stack, columns, layout, one
    ok = ~failed
    stats = dict.fromkeys(REPAIRS, 0)
    stats.update(
        synth=int(synth[ok].sum()), open=int(still_open[ok].sum()), unroll=int(unroll[ok].sum())
    )
    count = sizes.copy()
    extra: dict[int, Paired] = {}  # repaired threads with more calls than their rows (rare)
    for t, rows in rows_of(ev.thread, failed, idx_dtype):
        paired, dropped = pair_records(ev.action[rows], ev.method[rows], rows)
        for key, value in repair_counts(paired, dropped).items():
            stats[key] += value
        count[t] = paired.rows
        if paired.rows <= sizes[t]:
            out.put(int(start[t]), paired)
        else:
            extra[t] = paired
    ranges = out.compact(start, count, extra)
    table = out.table(trace, ranges, counts[:, 4:6].copy(), counts[:, 0].copy())
    table.diagnostics.extend(repair_diagnostics(stats))
    return table


def rows_of(
    thread: npt.NDArray[Any], wanted: npt.NDArray[np.bool_], dtype: type
) -> Iterator[tuple[int, IntArray]]:
    """(thread row, its event rows in order) for each `wanted` thread: one pass and a sort
    of their rows, not a pass per thread (65,535 threads with a bad exit each)."""
    if not wanted.any():
        return
    rows: IntArray = np.flatnonzero(wanted[thread]).astype(dtype)
    rows = rows[np.argsort(thread[rows], kind="stable")]
    owner = thread[rows]
    starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    for a, b in zip(starts.tolist(), [*starts[1:].tolist(), len(rows)], strict=True):
        yield int(owner[a]), rows[a:b]


def depth_dtype(height: int) -> np.dtype[Any]:
    """The call table's depth column for stacks at most `height` frames high: int16 (two
    bytes a call less) while every depth fits, else int32."""
    return np.dtype(np.int16) if height <= 0x7FFF else np.dtype(np.int32)


def thread_sizes(thread: npt.NDArray[Any], n_threads: int) -> I64:
    """Records per thread row, counted in slices (bincount widens its input to intp: a
    10M-record trace would need an 80 MB temporary at once)."""
    sizes = np.zeros(n_threads, dtype=np.int64)
    for at in range(0, len(thread), 1 << 20):
        sizes += np.bincount(thread[at : at + (1 << 20)], minlength=n_threads)
    return sizes


def pair_records(
    act: npt.NDArray[Any], meth: npt.NDArray[Any], rows: IntArray | None
) -> tuple[Paired, int]:
    """Pair one thread's records (chronological; `rows` their event rows, or None to number
    them 0..m-1) with the repair walk when an exit does not match; (calls, exits dropped)."""
    paired = pair_thread(rows, act, meth)
    if not paired.mismatched:
        return paired, 0
    seq = repair_sequence(act, meth)
    m = len(act)
    paired = pair_thread(
        seq.positions if rows is None else rows[seq.positions],
        act[seq.positions],
        meth[seq.positions],
        enter_mask=seq.is_enter,
        forced=seq.forced,
        first=0 if rows is None else int(rows[0]),
        last=m - 1 if rows is None else int(rows[-1]),
    )
    return paired, seq.dropped


class _Columns:
    """The call table's columns, filled thread by thread into reserved slots."""

    NAMES = Calls._fields  # method, depth, parent, subtree_end, enter_event, exit_event, flags

    def __init__(
        self, capacity: int, idx_dtype: type, depth: np.dtype[Any], method: np.dtype[Any]
    ) -> None:
        row = np.int32 if capacity < 2**31 - 1 else np.int64
        kinds: tuple[Any, ...] = (method, depth, row, row, idx_dtype, idx_dtype, np.uint8)
        self.dtypes: dict[str, Any] = dict(zip(self.NAMES, kinds, strict=True))
        self.cols: dict[str, npt.NDArray[Any]] = {
            name: np.empty(capacity, dtype=dt) for name, dt in self.dtypes.items()
        }

    def put(self, lo: int, p: Paired) -> None:
        """Copy one thread's calls in at row `lo` (row references offset)."""
        hi = lo + p.rows
        for name in self.NAMES:
            dest = self.cols[name][lo:hi]
            dest[...] = getattr(p, name)
            setattr(p, name, None)
            _shift(name, dest, lo)

    def compact(self, slots: I64, count: I64, extra: dict[int, Paired]) -> I64:
        """Close the gaps between the slots (moving rows down, in thread order); threads
        in `extra` go in at their place. Return the final thread ranges."""
        n = len(count)
        starts = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(count, out=starts[1:])
        if extra:  # some thread outgrew its slot: rebuild at the exact size
            old, self.cols = (
                self.cols,
                {name: np.empty(int(starts[-1]), dtype=dt) for name, dt in self.dtypes.items()},
            )
            for t in range(n):
                lo, k = int(starts[t]), int(count[t])
                if t in extra:
                    self.put(lo, extra.pop(t))
                    continue
                for name in self.NAMES:
                    dest = self.cols[name][lo : lo + k]
                    dest[...] = old[name][slots[t] : slots[t] + k]
                    _shift(name, dest, lo - int(slots[t]))
            del old
        else:
            for t in range(n):
                src, dst, k = int(slots[t]), int(starts[t]), int(count[t])
                if src == dst or not k:
                    continue
                for name in self.NAMES:
                    col = self.cols[name]
                    col[dst : dst + k] = col[src : src + k]  # numpy copes with the overlap
                    _shift(name, col[dst : dst + k], dst - src)
        return np.stack([starts[:-1], starts[1:]], axis=1)

    def table(self, trace: Trace, ranges: I64, spans: I64, records: I64 | None = None) -> CallTable:
        """The filled rows (`ranges` from `compact`) as a CallTable (`spans`: each thread's
        first and last event row; `records`: its records, when counted)."""
        size = int(ranges[-1, 1]) if len(ranges) else 0
        c = {name: col[:size] for name, col in self.cols.items()}
        return CallTable(
            trace=trace,
            method=c["method"],
            depth=c["depth"],
            parent=c["parent"],
            subtree_end=c["subtree_end"],
            enter_event=c["enter_event"],
            exit_event=c["exit_event"],
            flags=c["flags"],
            thread_ranges=ranges,
            thread_events=spans,
            thread_records=records,
        )


def _shift(name: str, rows: npt.NDArray[Any], delta: int) -> None:
    """Offset the row references of a column slice by `delta` (parents keep -1)."""
    if not delta:
        return
    if name == "parent":
        rows[rows >= 0] += delta
    elif name == "subtree_end":
        rows += delta


REPAIRS = ("synth", "open", "unroll", "forced", "dropped")  # kinds of repair, as counted


def repair_counts(paired: Paired, dropped: int) -> dict[str, int]:
    """The repairs of one thread's pairing (`pair_records`' result), by kind."""
    counts = {key: getattr(paired, key) for key in REPAIRS[:-1]}
    counts["dropped"] = dropped
    return counts


def repair_diagnostics(stats: dict[str, int]) -> list[Diagnostic]:
    """One Diagnostic per kind of repair that happened (counts summed over threads)."""
    texts = {
        "synth": (
            "exit-without-enter",
            "exits with no matching enter (tracing began inside the method): entry set to the "
            "thread's first timestamp",
        ),
        "open": (
            "open-at-end",
            "calls still open at the end: closed at the thread's last timestamp",
        ),
        "unroll": ("unroll-exit", "calls exited by an unroll (exception) record"),
        "forced": (
            "forced-exit",
            "frames closed early because an exit named a method deeper in the stack",
        ),
        "dropped": (
            "stray-exit-dropped",
            "exits naming a method not on the (non-empty) stack were dropped",
        ),
    }
    return [
        Diagnostic(code, message, None, stats[key])
        for key, (code, message) in texts.items()
        if stats[key]
    ]
