"""dmtracedump's numbers (format.md d.2), computed by the engine plus the few corrections
that reproduce Debian's `dmtracedump` where its policies differ from ours.

`legacy_profile(session, query, policy)` sits after `Session.profile` and feeds the
dmtracedump exporters (text, HTML, DOT, diff); it is kept in the session (`Session.memo`), so
a report and its call graph share one computation. `report_clock` is dmtracedump's clock
rule. Numbers are in the trace's µs, like dmtracedump's. On a balanced trace the engine
already agrees with dmtracedump exactly (docs/engine.md); with `policy="dmtracedump"` (the
default of `traceview dmtracedump`) three more of its behaviours are reproduced, each only
when the trace needs it:

* an exit with an empty stack is a top-level call of that method whose entry time is 0, so
  its inclusive time is the exit's absolute time (the engine instead opens it at the
  thread's first timestamp);
* every method id missing from the key is one `(unknown)` method;
* a thread whose id is 32768 or more is left out of "Total cycles" and its calls still open
  at the end are never closed (dmtracedump keeps per-thread state in 32768 slots).

Exits that do not match the stack make dmtracedump stop; there the engine's repairs stand
(`forced-exit`, `stray-exit-dropped`). `policy="traceview"` keeps the engine's policies for
every case. Orders and ranks are in `analysis/dmtracedump/order.py`.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field, replace
from typing import cast

import numpy as np
import numpy.typing as npt

from traceview.analysis.calls import OPEN, RECURSIVE, build_calls
from traceview.analysis.direct import direct_profile
from traceview.analysis.profile import Profile, profile
from traceview.analysis.query import Clock, Query
from traceview.analysis.session import Session
from traceview.model import EventTable, MethodTable, Trace

I64 = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

TOPLEVEL, UNKNOWN = 0, 1  # dmtracedump's two pseudo-methods, before the key's methods
THREAD_SLOTS = 32768  # dmtracedump's MAX_THREADS
POLICIES = ("dmtracedump", "traceview")


@dataclass(frozen=True, eq=False)
class LegacyProfile:
    """dmtracedump's per-method statistics, one row per *entry*: 0 = `(toplevel)`,
    1 = `(unknown)`, then entry `2 + m` for method row `m` (an entry of an undeclared row
    merged into `(unknown)` stays empty).

    Names are bytes as dmtracedump prints them: `name[e]` is None for a pseudo-method (its
    class is printed alone). `ids[e]` is the method id (-2 and -1 for the pseudo-methods).
    `excl` = elapsedExclusive, `top` = topExclusive, `incl` = elapsedInclusive, `calls` =
    numCalls[0] (non-recursive), `recursive` = numCalls[1], all µs / counts. Edges: one row
    per (parent, child, parent_recursive, child_recursive) with their summed µs and calls.
    `total` is "Total cycles". `present[e]` marks entries dmtracedump has (the key's methods
    and the two pseudo-methods).
    """

    clock: str
    policy: str
    total: int
    class_name: list[bytes]
    name: list[bytes | None]
    signature: list[bytes]
    ids: list[int]
    present: Bools
    excl: I64
    top: I64
    incl: I64
    calls: I64
    recursive: I64
    edge_parent: I64
    edge_child: I64
    edge_parent_recursive: Bools
    edge_child_recursive: Bools
    edge_time: I64
    edge_calls: I64
    notes: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.excl)

    def validate(self) -> None:
        """Check the invariants: counts and times >= 0, topExclusive <= exclusive, edge
        calls adding up to each method's calls, and Σ exclusive = Total cycles when every
        thread is counted (dmtracedump charges every Δ to some method or `(toplevel)`)."""
        problems = []
        if (self.excl < 0).any() or (self.incl < 0).any() or (self.top < 0).any():
            problems.append("negative time")
        if (self.top > self.excl).any():
            problems.append("topExclusive above exclusive")
        into = np.bincount(self.edge_child, weights=self.edge_calls, minlength=len(self))
        if not np.array_equal(into[1:].astype(np.int64), (self.calls + self.recursive)[1:]):
            problems.append("edge calls differ from method calls")
        if not any("32768" in n for n in self.notes) and int(self.excl.sum()) != self.total:
            problems.append(f"exclusive sum {int(self.excl.sum())} != total {self.total}")
        if problems:
            raise AssertionError("LegacyProfile: " + "; ".join(problems))


def report_clock(clocks: Collection[str], asked: str | None) -> Clock:
    """The clock of dmtracedump's numbers among `clocks`: the one asked for, else its own, the
    first time field of each record (thread CPU when the trace has it); ValueError when the
    trace lacks it."""
    clock = asked or ("cpu" if "cpu" in clocks else "wall")
    if clock not in clocks:
        raise ValueError(f"this trace has no {clock} clock")
    return cast(Clock, clock)


def legacy_profile(session: Session, q: Query, policy: str = "dmtracedump") -> LegacyProfile:
    """dmtracedump's statistics of the selection on `q.clock` (µs), kept in the session (a
    report and its call graph share one computation)."""
    return session.memo("dmtracedump", (q, policy), lambda: _legacy_profile(session, q, policy))


def _legacy_profile(session: Session, q: Query, policy: str) -> LegacyProfile:
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r} (known: {', '.join(POLICIES)})")
    trace = session.trace
    clock = q.clock
    notes: list[str] = []
    emulate = policy == "dmtracedump"
    if emulate and (q.time_range is not None or q.my_code):
        notes.append("with a time range or --my-code the engine's stack policies apply")
        emulate = False
    prof = _profile(session, q)
    spans = prof.thread_total[clock] // 1000  # each thread's last - first record, in µs
    base = trace
    undeclared = ~trace.methods.declared
    selected = np.asarray(prof.threads, dtype=np.int64)
    orphans: tuple[I64, I64, I64, I64] | None = None
    if emulate:
        codes = {d.code for d in prof.diagnostics}
        merge = int(np.count_nonzero(undeclared)) > 1
        if "exit-without-enter" in codes or merge:
            base, orphans = _dmtracedump_events(trace, clock, selected)
            prof = _rewritten_profile(base, q)
        if "open-at-end" in codes:
            big = selected[trace.threads.id[selected] >= THREAD_SLOTS]
            if len(big):
                notes.append(
                    "threads with ids >= 32768 are left out of Total cycles and their open "
                    "calls are not closed (dmtracedump's behaviour; --policy traceview counts "
                    "them)"
                )
    shown = session.methods(q)  # renamed when the query deobfuscates (--mapping)
    return _assemble(base, prof, clock, spans, policy, emulate, orphans, notes, shown)


def _profile(session: Session, q: Query) -> Profile:
    """The engine's profile of the selection; for the whole trace without a call table,
    computed directly on the one clock needed (half the counting of `Session.profile`)."""
    whole = q.threads is None and q.time_range is None and not q.my_code
    if whole and not session.has_calls:
        return session.whole_profile((q.clock,))
    return session.profile(q)


def _rewritten_profile(base: Trace, q: Query) -> Profile:
    """The engine's profile of the trace as dmtracedump's stacks see it (no time range or "my
    code" here: those keep the engine's policies), without a session of its own."""
    if q.threads is None:
        return direct_profile(base, clocks=(q.clock,))
    return profile(build_calls(base), threads=q.threads)


def _assemble(
    trace: Trace,
    prof: Profile,
    clock: str,
    spans: I64,
    policy: str,
    emulate: bool,
    orphans: tuple[I64, I64, I64, I64] | None,
    notes: list[str],
    shown: MethodTable | None = None,
) -> LegacyProfile:
    methods = trace.methods
    n = len(methods)
    undeclared = ~methods.declared
    entry = np.arange(2, n + 2, dtype=np.int64)
    present = np.ones(n + 2, dtype=bool)
    if emulate:
        entry[undeclared] = UNKNOWN
        present[2:][undeclared] = False
    else:
        present[UNKNOWN] = False
    size = n + 2
    us = 1000
    excl = _sum(entry, prof.excl[clock] // us, size)
    top = _sum(entry, prof.top_excl[clock] // us, size)
    incl = _sum(entry, prof.incl[clock] // us, size)
    calls = _sum(entry, prof.calls, size)
    rec = _sum(entry, prof.recursive_calls, size)
    e = prof.edges
    ep = np.where(e.parent < 0, TOPLEVEL, entry[np.maximum(e.parent, 0)])
    ec = entry[e.child]
    epr = np.asarray(e.parent_recursive, dtype=bool)
    ecr = np.asarray(e.child_recursive, dtype=bool)
    et = e.incl[clock] // us
    en = np.asarray(e.calls, dtype=np.int64)
    tids = trace.threads.id[np.asarray(prof.threads, dtype=np.int64)]
    counted = tids < THREAD_SLOTS if emulate else np.ones(len(tids), dtype=bool)
    if emulate and orphans is not None:
        o_entry, o_time, o_delta, _ = orphans
        oe = entry[o_entry]
        excl += _sum(oe, o_delta, size)
        top += _sum(oe, o_delta, size)
        incl += _sum(oe, o_time, size)
        calls += _sum(oe, np.ones(len(oe), dtype=np.int64), size)
        ep = np.concatenate([ep, np.full(len(oe), TOPLEVEL)])
        ec = np.concatenate([ec, oe])
        epr = np.concatenate([epr, np.zeros(len(oe), dtype=bool)])
        ecr = np.concatenate([ecr, np.zeros(len(oe), dtype=bool)])
        et = np.concatenate([et, o_time])
        en = np.concatenate([en, np.ones(len(oe), dtype=np.int64)])
    if emulate and not counted.all():
        fix = _unclosed(trace, prof, clock, tids >= THREAD_SLOTS, entry)
        if fix is not None:
            f_entry, f_time, f_rec, f_parent, f_prec = fix
            incl -= _sum(f_entry[~f_rec], f_time[~f_rec], size)
            calls -= _sum(f_entry[~f_rec], np.ones(int((~f_rec).sum()), np.int64), size)
            rec -= _sum(f_entry[f_rec], np.ones(int(f_rec.sum()), np.int64), size)
            ep = np.concatenate([ep, f_parent])
            ec = np.concatenate([ec, f_entry])
            epr = np.concatenate([epr, f_prec])
            ecr = np.concatenate([ecr, f_rec])
            et = np.concatenate([et, -f_time])
            en = np.concatenate([en, -np.ones(len(f_entry), dtype=np.int64)])
    # (toplevel): every Δ of every thread goes to some method or to it
    excl[TOPLEVEL] = int(spans.sum()) - int(excl[1:].sum())
    top[TOPLEVEL] = excl[TOPLEVEL]
    total = int(spans[counted].sum())
    incl[TOPLEVEL] = total
    calls[TOPLEVEL] = rec[TOPLEVEL] = 0
    edges = _merge_edges(ep, ec, epr, ecr, et, en, size)
    names = legacy_names(trace, shown)
    return LegacyProfile(
        clock=clock,
        policy=policy,
        total=total,
        class_name=names[0],
        name=names[1],
        signature=names[2],
        ids=[-2, -1, *(int(i) for i in methods.id)],
        present=present,
        excl=excl,
        top=top,
        incl=incl,
        calls=calls,
        recursive=rec,
        edge_parent=edges[0],
        edge_child=edges[1],
        edge_parent_recursive=edges[2].astype(bool),
        edge_child_recursive=edges[3].astype(bool),
        edge_time=edges[4],
        edge_calls=edges[5],
        notes=notes,
    )


def _sum(index: I64, values: npt.NDArray[np.integer], size: int) -> I64:
    """Σ values by index (exact: a float bincount only while every sum fits 2^53)."""
    if int(np.abs(values).sum(dtype=np.float64)) < 2**52:
        return np.bincount(index, weights=values, minlength=size).astype(np.int64)
    return _exact_sum(index, values, size)


def _exact_sum(index: I64, values: npt.NDArray[np.integer], size: int) -> I64:
    out = np.zeros(size, dtype=np.int64)
    np.add.at(out, index, np.asarray(values, dtype=np.int64))
    return out


def _merge_edges(
    ep: I64, ec: I64, epr: Bools, ecr: Bools, et: I64, en: I64, size: int
) -> tuple[I64, I64, I64, I64, I64, I64]:
    """Rows with the same (parent, child, recursion bits) summed; rows left with no calls
    dropped; sorted by key."""
    key = ((ep * size + ec) * 2 + epr.astype(np.int64)) * 2 + ecr.astype(np.int64)
    uniq, inv = np.unique(key, return_inverse=True)
    time = _exact_sum(inv, et, len(uniq))
    calls = _exact_sum(inv, en, len(uniq))
    keep = calls > 0
    uniq, time, calls = uniq[keep], time[keep], calls[keep]
    crec = uniq % 2
    prec = (uniq // 2) % 2
    pc = uniq // 4
    return pc // size, pc % size, prec, crec, time, calls


def legacy_names(
    trace: Trace, shown: MethodTable | None = None
) -> tuple[list[bytes], list[bytes | None], list[bytes]]:
    """Class, method name (None for a pseudo-method) and signature as dmtracedump splits a
    key line (`dmtracedump_fields`), from the line as the file wrote it when the reader kept
    it. Without it (other variants, a renamed method) from the fields: ART writes 5 fields (no
    line number, a missing source file as `(null)`), which leaves `\tfile` glued to the
    signature; Dalvik's 6 fields do not, and an ART method without a line number counts as 5.
    `shown`: the names to print (the session's renamed table), default the trace's."""
    m = trace.methods if shown is None else shown
    art = (trace.header.vm or "").lower() == "art"
    classes: list[bytes] = [b"(toplevel)", b"(unknown)"]
    names: list[bytes | None] = [None, None]
    sigs: list[bytes] = [b"", b""]
    lines = m.line.tolist()
    kept = m.key_line or (None,) * len(m)
    renamed = m.obfuscated or ("",) * len(m)
    for i in range(len(m)):
        line = kept[i]
        if line is not None and not renamed[i]:
            cls, name, sig = dmtracedump_fields(_raw(line))
            classes.append(cls)
            names.append(name)
            sigs.append(sig)
            continue
        classes.append(_raw(m.class_name[i]))
        names.append(_raw(m.name[i]) if m.name[i] else None)
        sig = _raw(m.signature[i])
        if art and lines[i] < 0:
            sig += b"\t" + (_raw(m.source_file[i]) or b"(null)")
        sigs.append(sig)
    return classes, names, sigs


def dmtracedump_fields(rest: bytes) -> tuple[bytes, bytes | None, bytes]:
    """dmtracedump's split of a key line after its id: class, name and signature when the
    class and the name are non-empty and each followed by a tab (else the whole rest is the
    class of a name-less entry); the signature runs to the end of the line unless it and the
    source file are non-empty and each followed by a tab (a 6-field line: file and line
    number split off). So `sig\tFile.java` and `sig\t` (5 fields) print as written."""
    f = rest.split(b"\t", 2)
    if len(f) < 3 or not f[0] or not f[1]:
        return rest, None, b""
    g = f[2].split(b"\t", 2)
    sig = g[0] if len(g) == 3 and g[0] and g[1] else f[2]
    return f[0], f[1], sig


def _raw(text: str) -> bytes:
    """The bytes the trace holds (names keep undecodable bytes as surrogate escapes)."""
    return text.encode("utf-8", "surrogateescape")


def _dmtracedump_events(
    trace: Trace, clock: str, threads: I64
) -> tuple[Trace, tuple[I64, I64, I64, I64]]:
    """The trace as dmtracedump's stacks see it: undeclared ids merged into one row, exits
    with an empty stack removed. Returns it and, per removed exit of a selected thread, its
    method row, absolute time and Δ since the thread's previous record (µs), and thread."""
    ev = trace.events
    method = ev.method
    undeclared = ~trace.methods.declared
    if int(np.count_nonzero(undeclared)) > 1:
        first = int(np.flatnonzero(undeclared)[0])
        method = np.where(undeclared[method], first, method).astype(ev.method.dtype)
    order = np.argsort(ev.thread, kind="stable")
    th = ev.thread[order].astype(np.int64)
    step = np.where(ev.action[order] == 0, 1, -1).astype(np.int64)
    n = len(order)
    starts = np.flatnonzero(np.r_[True, th[1:] != th[:-1]]) if n else np.zeros(0, np.int64)
    group = np.cumsum(np.r_[False, th[1:] != th[:-1]]) if n else np.zeros(0, np.int64)
    depth = np.cumsum(step)
    if n:
        base = depth[starts] - step[starts]
        depth -= base[group]
    # per-thread running minimum of the depth (with 0 before the first record): a new
    # minimum below 0 is an exit dmtracedump sees with an empty stack
    k = 2 * n + 2
    shift = group * k
    low = np.minimum.accumulate(depth - shift) + shift
    low = np.minimum(low, 0)
    prev = np.empty_like(low)
    if n:
        prev[1:] = low[:-1]
        prev[starts] = 0
    orphan_sorted = low < prev
    rows = order[orphan_sorted]
    times = ev.time(clock)[order] // 1000
    delta = np.zeros(n, dtype=np.int64)
    if n:
        delta[1:] = times[1:] - times[:-1]
        delta[starts] = 0
    o_thread = th[orphan_sorted]
    sel = np.isin(o_thread, threads)
    info = (
        method[rows][sel].astype(np.int64),
        times[orphan_sorted][sel],
        delta[orphan_sorted][sel],
        o_thread[sel],
    )
    keep = np.ones(len(ev), dtype=bool)
    keep[rows] = False
    events = EventTable(
        thread=ev.thread[keep],
        method=method[keep],
        action=ev.action[keep],
        cpu=None if ev.cpu is None else ev.cpu[keep],
        wall=None if ev.wall is None else ev.wall[keep],
    )
    return replace(trace, events=events, diagnostics=list(trace.diagnostics)), info


def _unclosed(
    trace: Trace, prof: Profile, clock: str, big: Bools, entry: I64
) -> tuple[I64, I64, Bools, I64, Bools] | None:
    """Calls still open at the end in the threads dmtracedump never closes (ids >= 32768):
    their entry, µs, recursion bit, caller entry and the caller's recursion bit."""
    threads = np.asarray(prof.threads, dtype=np.int64)[big]
    rows = trace.events.thread
    pick = np.isin(rows, threads)
    sub = replace(
        trace,
        events=EventTable(
            thread=rows[pick],
            method=trace.events.method[pick],
            action=trace.events.action[pick],
            cpu=None if trace.events.cpu is None else trace.events.cpu[pick],
            wall=None if trace.events.wall is None else trace.events.wall[pick],
        ),
    )
    calls = build_calls(sub)
    open_rows = np.flatnonzero(calls.flags & OPEN)
    if not len(open_rows):
        return None
    time = (calls.end(clock)[open_rows] - calls.start(clock)[open_rows]) // 1000
    rec = (calls.flags[open_rows] & RECURSIVE) != 0
    parent = calls.parent[open_rows].astype(np.int64)
    p_entry = np.where(parent < 0, TOPLEVEL, entry[calls.method[np.maximum(parent, 0)]])
    p_rec = np.where(parent < 0, False, (calls.flags[np.maximum(parent, 0)] & RECURSIVE) != 0)
    return entry[calls.method[open_rows]], time, rec, p_entry, p_rec.astype(bool)
