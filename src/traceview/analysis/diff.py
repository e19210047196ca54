"""Comparing runs: a baseline and a candidate set of runs (each a `View`: one session seen
through one query, or its `Run` summary), matched per method by class + name + signature as
the query shows them (renamed when the query has a renaming) and per thread by name,
summarised as medians with their change and whether it exceeds the run-to-run spread
(analysis/significance.py).

`diff(baseline, candidate, thresholds) -> DiffView` is a pure function over the runs'
profiles (no I/O); `summarise(view) -> Run` keeps the few numbers a diff needs, so a front end
can compare many large traces holding one at a time. `DiffView` is what the `diff` exporters
render (exporters/diff.py), the way a `View` is what every single-trace exporter renders. A
method missing from some runs counts 0 in those runs; one missing from every run of a side is
listed as `new` or `gone`.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.paths import Forest, Frame
from traceview.analysis.significance import STATES, Change, compare, critical, dof, judge
from traceview.analysis.view import View

F64 = npt.NDArray[np.float64]
I8 = npt.NDArray[np.int8]
Bools = npt.NDArray[np.bool_]
Key = tuple[str, str, str]  # class, method name, signature
RESOLUTION_NS = 1000.0  # the traces' timer resolution (1 µs): the floor of a run-to-run σ̂
METRICS = ("incl", "excl")

STATUSES = ("regression", "improvement", "new", "gone", "noise", "unchanged", "ungated")


@dataclass(frozen=True)
class Thresholds:
    """What makes a regression: a gated method (its name matches one of `methods` — all when
    empty — and its median `metric` time is ≥ `min_time_ns` on either side) whose median
    `metric` time grew by more than `fail_above` (0.10 = 10 %), by more than the run-to-run
    spread at `confidence` when a spread is known."""

    fail_above: float = 0.10
    min_time_ns: int = 1_000_000
    metric: str = "excl"
    confidence: float = 0.95
    methods: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.fail_above >= 0:
            raise ValueError(f"the change threshold must be ≥ 0, not {self.fail_above}")
        if self.min_time_ns < 0:
            raise ValueError("the minimum time must be ≥ 0")
        if self.metric not in METRICS:
            raise ValueError(f"metric must be incl or excl, not {self.metric!r}")
        if not 0.5 <= self.confidence < 1:
            raise ValueError(f"confidence must be in [50 %, 100 %), not {self.confidence:.4g}")
        name_filter(self.methods)  # a bad regex fails here, once


@dataclass(frozen=True, eq=False)
class MethodDiff:
    """Per-method comparison, one row per method seen on either side, sorted by key.
    `on_base`/`on_cand`: called in at least one run of that side; `incl`/`excl`: the
    `Change` of the inclusive/exclusive ns on the diff's clock; `calls`: of the call counts
    (recursive ones included); `gated`: the thresholds apply; `status`: one of `STATUSES`
    (the gate's word); `state`: an index into `significance.STATES` (new / gone only for
    absence, slower / faster past the thresholds and the spread, noise otherwise)."""

    class_name: tuple[str, ...]
    name: tuple[str, ...]
    signature: tuple[str, ...]
    on_base: Bools
    on_cand: Bools
    incl: Change
    excl: Change
    calls: Change
    gated: Bools
    status: tuple[str, ...]
    state: I8

    def __len__(self) -> int:
        return len(self.name)

    def state_name(self, row: int) -> str:
        """The state word of `row`: new, gone, slower, faster or noise."""
        return STATES[int(self.state[row])]

    def full_name(self, row: int) -> str:
        """`class.method` (no signature)."""
        cls = self.class_name[row]
        return f"{cls}.{self.name[row]}" if cls else self.name[row]

    def change(self, metric: str) -> Change:
        """The `Change` of "incl" or "excl"."""
        return self.incl if metric == "incl" else self.excl


@dataclass(frozen=True, eq=False)
class ThreadDiff:
    """Per-thread comparison by name (threads sharing a name are summed; an unnamed thread is
    `[id]`): `total` the thread's traced time on the clock (clipped to the range), `calls`."""

    name: tuple[str, ...]
    on_base: Bools
    on_cand: Bools
    total: Change
    calls: Change

    def __len__(self) -> int:
        return len(self.name)


@dataclass(frozen=True, eq=False)
class DiffView:
    """A finished comparison: what the `diff` exporters render. `baseline`/`candidate` name
    the runs (their files); `clock` the clock of every number; `critical` the one-sided critical
    t at `thresholds.confidence` (`significance.critical`; None with one run per side: no
    spread known)."""

    baseline: tuple[str, ...]
    candidate: tuple[str, ...]
    clock: str
    thresholds: Thresholds
    critical: float | None
    methods: MethodDiff
    threads: ThreadDiff
    notes: tuple[str, ...] = field(default=())

    @property
    def spread_known(self) -> bool:
        """Whether the runs give a run-to-run spread (some side has two runs or more)."""
        return self.critical is not None

    @property
    def dof(self) -> int:
        """Degrees of freedom of the pooled spread."""
        return dof(len(self.baseline), len(self.candidate))

    def rows(self, status: str) -> list[int]:
        """Method rows with `status`, in display order."""
        return [i for i in self.order() if self.methods.status[i] == status]

    @property
    def regressions(self) -> list[int]:
        """Method rows that fail the gate, largest change first."""
        return self.rows("regression")

    def order(self) -> list[int]:
        """Method rows for display: by status (`STATUSES` order), then by decreasing absolute
        change of the gated metric, then by name."""
        m = self.methods
        delta = np.abs(np.nan_to_num(m.change(self.thresholds.metric).delta))
        rank = {s: i for i, s in enumerate(STATUSES)}
        return sorted(
            range(len(m)),
            key=lambda i: (rank[m.status[i]], -delta[i], m.full_name(i), m.signature[i]),
        )


@dataclass(frozen=True, eq=False)
class Run:
    """What a comparison keeps of one run (`summarise(view)`), so a caller can let the trace
    go before opening the next: per called method its key and inclusive, exclusive ns on
    `clock` and calls; per selected thread its name ("main" for the session's main thread),
    total ns and calls; whether the run is `sampled`; and, for a comparison of call paths
    (`analysis.compare`), its merged trees as one `forest` over its `frames`."""

    source: str
    clock: str
    keys: list[Key]
    incl: F64
    excl: F64
    calls: F64
    thread_names: list[str]
    thread_total: F64
    thread_calls: F64
    sampled: bool = False
    forest: Forest | None = None
    frames: tuple[Frame, ...] = ()


def summarise(view: View) -> Run:
    """The numbers of one run a diff needs (its profile on the query's clock, named as the
    query shows them)."""
    prof, me, clock = view.profile(), view.methods, view.query.clock
    rows = np.flatnonzero(prof.calls + prof.recursive_calls)
    th = view.trace.threads
    main = view.session.main_thread()
    return Run(
        source=view.trace.source or "-",
        clock=clock,
        keys=[method_key(me.class_name[m], me.name[m], me.signature[m]) for m in rows.tolist()],
        incl=prof.incl[clock][rows].astype(np.float64),
        excl=prof.excl[clock][rows].astype(np.float64),
        calls=(prof.calls + prof.recursive_calls)[rows].astype(np.float64),
        thread_names=[thread_key(th.label(t), t == main) for t in prof.threads],
        thread_total=prof.thread_total[clock].astype(np.float64),
        thread_calls=prof.thread_calls.astype(np.float64),
        sampled=bool(view.trace.header.sampled),
    )


def method_key(class_name: str, name: str, signature: str) -> Key:
    """A method's identity across runs: class (dotted: Dalvik writes `a/b/C`, ART `a.b.C`),
    name and signature, as the query shows them (after renaming)."""
    return (class_name.replace("/", "."), name, signature)


def thread_key(label: str, main: bool) -> str:
    """A thread's identity across runs: its name, "main" for the session's main thread
    (`Session.main_thread`: named main, else the process's, else thread 1...)."""
    return "main" if main else label


def diff(
    baseline: Sequence[View | Run],
    candidate: Sequence[View | Run],
    thresholds: Thresholds | None = None,
) -> DiffView:
    """Compare the runs of `baseline` with those of `candidate` (each side at least one run;
    every run on the same clock)."""
    th = thresholds or Thresholds()
    if not baseline or not candidate:
        raise ValueError("each side needs at least one run")
    base = [r if isinstance(r, Run) else summarise(r) for r in baseline]
    cand = [r if isinstance(r, Run) else summarise(r) for r in candidate]
    clocks = {r.clock for r in (*base, *cand)}
    if len(clocks) != 1:
        raise ValueError(f"the runs are not on one clock ({', '.join(sorted(clocks))})")
    clock = clocks.pop()
    crit = critical(th.confidence, len(base), len(cand))
    notes = []
    if crit is None:
        notes.append("one run per side: no run-to-run spread is known; the threshold alone decides")
    kinds = {r.sampled for r in base}, {r.sampled for r in cand}
    if kinds[0] != kinds[1] or len(kinds[0]) > 1:
        notes.append(
            "sampled and instrumented runs are compared: a sampled run's times are estimates "
            "(a short method can show 0 although it was called), an instrumented run's are "
            "measured with its overhead"
        )
    return DiffView(
        baseline=tuple(r.source for r in base),
        candidate=tuple(r.source for r in cand),
        clock=clock,
        thresholds=th,
        critical=crit,
        methods=_methods(base, cand, crit, th),
        threads=_threads(base, cand, crit),
        notes=tuple(notes),
    )


def name_filter(patterns: Sequence[str]) -> Callable[[str, str], bool]:
    """A test of (`class.method`, signature) against `patterns`: globs (fnmatch, case
    sensitive, `*` spans dots) or, prefixed `re:`, regular expressions searched; a pattern
    matches `class.method` or `class.method` + signature. No patterns: everything."""
    if not patterns:
        return lambda _name, _sig: True
    regexes: list[re.Pattern[str]] = []
    globs: list[str] = []
    for p in patterns:
        if p.startswith("re:"):
            try:
                regexes.append(re.compile(p[3:]))
            except re.error as exc:
                raise ValueError(f"bad regular expression {p[3:]!r}: {exc}") from None
        else:
            globs.append(p)

    def test(text: str) -> bool:
        return any(rx.search(text) for rx in regexes) or any(
            fnmatch.fnmatchcase(text, g) for g in globs
        )

    return lambda name, sig: test(name) or test(name + sig)


def _stack(keys: Sequence[Sequence[object]], values: Sequence[F64], index: dict[Any, int]) -> F64:
    """runs × columns, summing the entries that share a key within a run."""
    out = np.zeros((len(keys), len(index)))
    for r, (ks, vs) in enumerate(zip(keys, values, strict=True)):
        cols = np.fromiter((index[k] for k in ks), dtype=np.intp, count=len(ks))
        np.add.at(out[r], cols, vs)
    return out


def _methods(
    base: Sequence[Run], cand: Sequence[Run], critical: float | None, th: Thresholds
) -> MethodDiff:
    keys = sorted({k for r in (*base, *cand) for k in r.keys})
    index: dict[Any, int] = {k: i for i, k in enumerate(keys)}

    def side(runs: Sequence[Run], what: str) -> F64:
        return _stack([r.keys for r in runs], [getattr(r, what) for r in runs], index)

    def seen(runs: Sequence[Run]) -> Bools:
        ones = [np.ones(len(r.keys)) for r in runs]
        found: Bools = _stack([r.keys for r in runs], ones, index).sum(axis=0) > 0
        return found

    changes = {
        what: compare(
            side(base, what), side(cand, what), critical, 1.0 if what == "calls" else RESOLUTION_NS
        )
        for what in ("incl", "excl", "calls")
    }
    on_base, on_cand = seen(base), seen(cand)
    match = name_filter(th.methods)
    chosen = np.array([match(f"{c}.{n}" if c else n, s) for c, n, s in keys], dtype=bool)
    ch = changes[th.metric]
    gated = chosen & (np.maximum(ch.base, ch.cand) >= th.min_time_ns)
    status = _status(ch, on_base, on_cand, gated, th.fail_above)
    state = judge(ch, on_base, on_cand, gated, th.fail_above)
    return MethodDiff(
        class_name=tuple(k[0] for k in keys),
        name=tuple(k[1] for k in keys),
        signature=tuple(k[2] for k in keys),
        on_base=on_base,
        on_cand=on_cand,
        incl=changes["incl"],
        excl=changes["excl"],
        calls=changes["calls"],
        gated=gated,
        status=status,
        state=state,
    )


def _status(
    ch: Change, on_base: Bools, on_cand: Bools, gated: Bools, fail_above: float
) -> tuple[str, ...]:
    """Per row: regression / improvement (gated, beyond the threshold and, when a spread is
    known, beyond it), new / gone (one side only), noise (beyond the threshold, within the
    spread), unchanged (gated, within the threshold), ungated."""
    rel = np.nan_to_num(ch.rel, nan=0.0)
    beyond = ch.significant if ch.known else np.ones(len(rel), dtype=bool)
    slower = gated & (rel > fail_above)
    faster = gated & (rel < -fail_above)
    out = []
    for i in range(len(rel)):
        if slower[i] and beyond[i]:
            s = "regression"
        elif faster[i] and beyond[i]:
            s = "improvement"
        elif not on_base[i]:
            s = "new"
        elif not on_cand[i]:
            s = "gone"
        elif slower[i] or faster[i]:
            s = "noise"
        elif gated[i]:
            s = "unchanged"
        else:
            s = "ungated"
        out.append(s)
    return tuple(out)


def _threads(base: Sequence[Run], cand: Sequence[Run], critical: float | None) -> ThreadDiff:
    names = sorted({n for r in (*base, *cand) for n in r.thread_names})
    index: dict[Any, int] = {n: i for i, n in enumerate(names)}

    def side(runs: Sequence[Run], what: str) -> F64:
        return _stack([r.thread_names for r in runs], [getattr(r, what) for r in runs], index)

    def seen(runs: Sequence[Run]) -> Bools:
        found = np.zeros(len(names), dtype=bool)
        for r in runs:
            found[[index[n] for n in r.thread_names]] = True
        return found

    return ThreadDiff(
        name=tuple(names),
        on_base=seen(base),
        on_cand=seen(cand),
        total=compare(
            side(base, "thread_total"), side(cand, "thread_total"), critical, RESOLUTION_NS
        ),
        calls=compare(side(base, "thread_calls"), side(cand, "thread_calls"), critical, 1.0),
    )
