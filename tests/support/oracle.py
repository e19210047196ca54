"""An independent, slow reference for the engine's statistics: one Python stack per thread,
walked record by record, written from format.md (d.1, d.4) and the engine's documented
policies (docs/engine.md), not from the engine's code.

traceview's `Call` model: every enter creates a call whose caller is the current top;
`recursive` = the same method is already on the stack; each record's CPU delta is charged to
the call on top before the record is applied (`addCpuTime`); real exclusive = inclusive − Σ
children's inclusive. Policies: an exit on an empty stack is a call entered at the thread's
first record that adopts every root finished so far; an exit naming a method deeper in the
stack closes the frames above it (forced) and then that method; an exit naming a method not on
a non-empty stack is dropped; unroll is an exit; calls still open end at the last record.
Used by tests/test_oracle_*.py.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from traceview.model import EventTable, Trace

RECURSIVE, SYNTH_ENTRY, OPEN, UNROLL, FORCED_EXIT = 1, 2, 4, 8, 16
ENTER, UNROLL_ACTION = 0, 2


@dataclass(eq=False)
class Call:
    """One call of one thread; `enter`/`exit` are positions in the thread's record list."""

    thread: int
    method: int
    enter: int
    exit: int = -1
    flags: int = 0
    caller: Call | None = None
    children: list[Call] = field(default_factory=list)
    depth: int = 0
    row: int = -1
    enter_event: int = -1
    exit_event: int = -1
    incl: dict[str, int] = field(default_factory=dict)
    excl: dict[str, int] = field(default_factory=dict)

    @property
    def parent_row(self) -> int:
        return -1 if self.caller is None else self.caller.row


@dataclass
class Oracle:
    """Every call in table order, plus per thread row its total, its (toplevel) time and the
    repair counts (keys as the engine's diagnostic codes)."""

    clocks: tuple[str, ...]
    calls: list[Call]
    thread_rows: list[tuple[int, int]]
    thread_total: dict[str, list[int]]
    toplevel: dict[str, list[int]]
    repairs: dict[str, int]


def walk_thread(t: int, actions: list[int], methods: list[int]) -> tuple[list[Call], int]:
    """The call forest of one thread (roots in order) and the number of dropped exits."""
    roots: list[Call] = []
    stack: list[Call] = []
    dropped = 0
    for pos, (action, m) in enumerate(zip(actions, methods, strict=True)):
        if action == ENTER:
            call = Call(t, m, pos, caller=stack[-1] if stack else None)
            (stack[-1].children if stack else roots).append(call)
            stack.append(call)
            continue
        how = UNROLL if action == UNROLL_ACTION else 0
        if not stack:  # tracing began inside m: it encloses everything so far
            call = Call(t, m, 0, pos, SYNTH_ENTRY | how, children=roots)
            for child in roots:
                child.caller = call
            roots = [call]
        elif stack[-1].method == m or any(frame.method == m for frame in stack):
            while stack[-1].method != m:
                frame = stack.pop()
                frame.exit, frame.flags = pos, frame.flags | FORCED_EXIT
            frame = stack.pop()
            frame.exit, frame.flags = pos, frame.flags | how
        else:
            dropped += 1
    for frame in stack:
        frame.exit, frame.flags = len(actions) - 1, frame.flags | OPEN
    return roots, dropped


def preorder(roots: list[Call]) -> list[Call]:
    """Calls depth first, each before its children; sets `depth`, and `RECURSIVE` on the
    calls whose method is already on the path from the root (counted on the way down)."""
    out: list[Call] = []
    on_path: dict[int, int] = defaultdict(int)
    todo: list[tuple[Call, int, bool]] = [(call, 0, False) for call in reversed(roots)]
    while todo:
        call, depth, leaving = todo.pop()
        if leaving:
            on_path[call.method] -= 1
            continue
        call.depth = depth
        if on_path[call.method]:
            call.flags |= RECURSIVE
        on_path[call.method] += 1
        out.append(call)
        todo.append((call, depth, True))
        todo += [(child, depth + 1, False) for child in reversed(call.children)]
    return out


def oracle(trace: Trace) -> Oracle:
    """Walk every thread of `trace` and time every call on every clock present."""
    ev = trace.events
    clocks = trace.clocks
    out = Oracle(clocks, [], [], {c: [] for c in clocks}, {c: [] for c in clocks}, {})
    repairs: dict[str, int] = defaultdict(int)
    records: list[list[int]] = [[] for _ in range(len(trace.threads))]
    for i, t in enumerate(ev.thread.tolist()):
        records[t].append(i)  # each thread's event rows, in order
    for t, recs in enumerate(records):
        actions = [int(ev.action[i]) for i in recs]
        roots, dropped = walk_thread(t, actions, [int(ev.method[i]) for i in recs])
        calls = preorder(roots)
        first_row = len(out.calls)
        for call in calls:
            call.row = len(out.calls)
            out.calls.append(call)
            call.enter_event, call.exit_event = recs[call.enter], recs[call.exit]
        out.thread_rows.append((first_row, len(out.calls)))
        for clock in clocks:
            col = ev.time(clock)
            times = [int(col[i]) for i in recs]
            top = _charge_deltas(calls, times, clock)
            out.toplevel[clock].append(top)
            out.thread_total[clock].append(times[-1] - times[0] if times else 0)
        repairs["stray-exit-dropped"] += dropped
        for flag, code in (
            (SYNTH_ENTRY, "exit-without-enter"),
            (OPEN, "open-at-end"),
            (UNROLL, "unroll-exit"),
            (FORCED_EXIT, "forced-exit"),
        ):
            repairs[code] += sum(1 for c in calls if c.flags & flag)
    out.repairs = {k: v for k, v in repairs.items() if v}
    return out


def _charge_deltas(calls: list[Call], times: list[int], clock: str) -> int:
    """Charge each record's delta to the call on top of the stack before that record (d.1)
    and return what went to (toplevel). Then, children before parents: CPU inclusive =
    exclusive + Σ children's inclusive (TV `addCpuTime`); real inclusive = end − start and
    real exclusive = max(inclusive − Σ children's inclusive, 0)."""
    starting: dict[int, list[Call]] = defaultdict(list)
    for call in calls:
        call.excl[clock] = 0
        starting[call.enter].append(call)  # pre-order: outer calls first
    toplevel = 0
    stack: list[Call] = []  # the calls entered before record k and not exited before it
    for k in range(1, len(times)):
        stack += starting[k - 1]
        while stack and stack[-1].exit < k:
            stack.pop()
        delta = times[k] - times[k - 1]
        if stack:
            assert stack[-1].depth == len(stack) - 1, "the open calls form one chain"
            stack[-1].excl[clock] += delta
        else:
            toplevel += delta
    for call in reversed(calls):
        kids = sum(child.incl[clock] for child in call.children)
        if clock == "wall":
            call.incl[clock] = times[call.exit] - times[call.enter]
            call.excl[clock] = max(call.incl[clock] - kids, 0)
        else:
            call.incl[clock] = call.excl[clock] + kids
    return toplevel


@dataclass
class OracleProfile:
    """traceview's per-method statistics over a selection of threads (d.4)."""

    calls: dict[int, int]
    recursive_calls: dict[int, int]
    incl: dict[str, dict[int, int]]
    excl: dict[str, dict[int, int]]
    top_excl: dict[str, dict[int, int]]
    # (caller method or -1, method, caller recursive, recursive) -> [calls, {clock: incl}]
    edges: dict[tuple[int, int, bool, bool], tuple[int, dict[str, int]]]
    thread_total: dict[str, list[int]]
    thread_calls: list[int]
    toplevel: dict[str, int]

    def relatives(self) -> dict[tuple[int, bool, bool], dict[int, tuple[int, ...]]]:
        """(method, parents?, recursive?) -> {caller or callee: (calls, incl per clock)}:
        the parents of m's (non-)recursive calls, or the children of m's (non-)recursive
        calls, each summed over the other end's recursiveness."""
        out: dict[tuple[int, bool, bool], dict[int, tuple[int, ...]]] = defaultdict(dict)
        for (p, c, prec, crec), (n, inc) in self.edges.items():
            for key, other in (((c, True, crec), p), ((p, False, prec), c)):
                old = out[key].get(other, (0,) * (1 + len(inc)))
                out[key][other] = tuple(a + b for a, b in zip(old, (n, *inc.values()), strict=True))
        return out


def oracle_profile(
    o: Oracle, threads: Iterable[int] | None = None, keep: Callable[[Call], bool] | None = None
) -> OracleProfile:
    """Sum the calls of the selected thread rows (default all) per method and per edge,
    only the calls `keep` accepts (a time range: see `clip_trace`)."""
    sel = list(range(len(o.thread_rows))) if threads is None else list(threads)
    dd = defaultdict
    prof = OracleProfile(
        dd(int),
        dd(int),
        {c: dd(int) for c in o.clocks},
        {c: dd(int) for c in o.clocks},
        {c: dd(int) for c in o.clocks},
        {},
        {c: [] for c in o.clocks},
        [],
        {c: 0 for c in o.clocks},
    )
    for t in sel:
        lo, hi = o.thread_rows[t]
        kept = [call for call in o.calls[lo:hi] if keep is None or keep(call)]
        prof.thread_calls.append(len(kept))
        for c in o.clocks:
            prof.thread_total[c].append(o.thread_total[c][t])
            prof.toplevel[c] += o.toplevel[c][t]
        for call in kept:
            rec = bool(call.flags & RECURSIVE)
            (prof.recursive_calls if rec else prof.calls)[call.method] += 1
            for c in o.clocks:
                prof.excl[c][call.method] += call.excl[c]
                if not rec:
                    prof.incl[c][call.method] += call.incl[c]
                    prof.top_excl[c][call.method] += call.excl[c]
            caller = call.caller
            key = (
                -1 if caller is None else caller.method,
                call.method,
                caller is not None and bool(caller.flags & RECURSIVE),
                rec,
            )
            n, inc = prof.edges.get(key, (0, {c: 0 for c in o.clocks}))
            prof.edges[key] = (n + 1, {c: inc[c] + call.incl[c] for c in o.clocks})
    return prof


def path(call: Call, keep: Callable[[Call], bool] | None = None) -> tuple[int, ...]:
    """Methods from the thread's root call down to `call` (only the callers `keep` accepts)."""
    out = [call.method]
    while call.caller is not None:
        call = call.caller
        if keep is None or keep(call):
            out.append(call.method)
    return tuple(reversed(out))


def oracle_top_down(
    o: Oracle, threads: Iterable[int] | None = None, keep: Callable[[Call], bool] | None = None
) -> dict[tuple[int, ...], Any]:
    """Top-down merged tree: root path -> [calls, {clock: incl}, {clock: excl}] (only the
    calls `keep` accepts, each under its nearest kept caller)."""
    out: dict[tuple[int, ...], Any] = {}
    for call in _selected(o, threads, keep):
        node = out.setdefault(path(call, keep), [0, defaultdict(int), defaultdict(int)])
        node[0] += 1
        for c in o.clocks:
            node[1][c] += call.incl[c]
            node[2][c] += call.excl[c]
    return out


def oracle_bottom_up(
    o: Oracle,
    threads: Iterable[int] | None = None,
    max_depth: int = 64,
    keep: Callable[[Call], bool] | None = None,
) -> dict[tuple[int, ...], Any]:
    """Bottom-up tree: (method, its caller, the caller's caller, ...) up to `max_depth`
    callers -> [calls, {clock: Σ exclusive of the method's calls reached that way}]."""
    out: dict[tuple[int, ...], Any] = {}
    for call in _selected(o, threads, keep):
        up = tuple(reversed(path(call, keep)))
        for length in range(1, min(len(up), max_depth + 1) + 1):
            node = out.setdefault(up[:length], [0, defaultdict(int)])
            node[0] += 1
            for c in o.clocks:
                node[1][c] += call.excl[c]
    return out


def _selected(
    o: Oracle, threads: Iterable[int] | None, keep: Callable[[Call], bool] | None = None
) -> list[Call]:
    sel = range(len(o.thread_rows)) if threads is None else threads
    calls = [call for t in sel for call in o.calls[slice(*o.thread_rows[t])]]
    return calls if keep is None else [c for c in calls if keep(c)]


def clip_trace(trace: Trace, clock: str, lo: int, hi: int) -> tuple[Trace, Callable[[Call], bool]]:
    """`trace` with only `clock`, its times clamped into [lo, hi], so that each record's
    delta is its overlap with the range; and the test of a call overlapping [lo, hi) (a
    zero-length call counts when it lies inside)."""
    col = trace.events.time(clock)
    clipped = np.clip(col, lo, max(lo, hi))
    cols = {"cpu": clipped, "wall": None} if clock == "cpu" else {"cpu": None, "wall": clipped}
    events = EventTable(trace.events.thread, trace.events.method, trace.events.action, **cols)
    header = dataclasses.replace(trace.header, clock="thread-cpu" if clock == "cpu" else "wall")

    def keep(call: Call) -> bool:
        s, e = int(col[call.enter_event]), int(col[call.exit_event])
        return (s < hi and e > lo) or (s == e and lo <= s < hi)

    return dataclasses.replace(trace, header=header, events=events), keep
