"""History across builds, read from a dataset's tables alone (no trace is read again): the
runs `traceview diff --dataset ROOT --base build=100 --vs build=101` compares, and one
method's times per build (the service's method page).

Traces are chosen by labels, `name=value` words all of which must hold: `app`, `build`,
`date`, `branch`, `device`, `name`, `trace_id` and `variant` are columns of the traces
table, any other name a key of its `labels` JSON. A run's numbers are the whole trace's
profile (the dataset's `profile` table summed over threads), named as it was added, so a
diff of runs from the dataset says per method and per thread what `traceview diff` of the
same trace files says (the call paths, which need the traces' trees, are not compared).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.diff import Run, method_key, thread_key
from traceview.dataset.labels import parse
from traceview.dataset.read import sql

COLUMNS = ("app", "build", "date", "branch", "device", "name", "trace_id", "variant")
_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
F64 = npt.NDArray[np.float64]


def choose(words: Sequence[str]) -> tuple[str, list[object]]:
    """`name=value` words as a WHERE condition on the traces table and its parameters;
    ValueError for a bad word."""
    terms: list[str] = []
    params: list[object] = []
    for name, value in parse(words).items():
        if name in COLUMNS:
            terms.append(f"{name} = ?")
        elif _NAME.fullmatch(name):
            terms.append(f"json_extract_string(labels, '$.{name}') = ?")
        else:
            raise ValueError(f"bad label name {name!r} in {name}={value}")
        params.append(value)
    if not terms:
        raise ValueError("choose traces with name=value words, e.g. build=101")
    return " AND ".join(terms), params


def runs(root: Path, words: Sequence[str], clock: str | None = None) -> tuple[list[Run], str]:
    """The runs of the traces `words` choose (ordered by date, name, id) on `clock` (default:
    the first one's default clock) and that clock; ValueError when none is chosen or one
    lacks the clock."""
    cond, params = choose(words)
    traces = sql(
        root,
        f"SELECT trace_id, name, clock, clocks, sampled FROM traces WHERE {cond} "
        "ORDER BY date, name, trace_id",
        params,
    ).rows
    if not traces:
        raise ValueError(f"no trace in {root} has {' '.join(words)}")
    clock = clock or str(traces[0][2])
    if clock not in ("cpu", "wall"):
        raise ValueError(f"no clock {clock!r}: cpu or wall")
    for tid, name, _, clocks, _ in traces:
        if clock not in str(clocks).split(","):
            raise ValueError(f"{name} ({tid[:12]}): this trace has no {clock} clock")
    ids = [t[0] for t in traces]
    marks = ", ".join("?" * len(ids))
    methods = sql(
        root,
        f"SELECT p.trace_id, m.class_name, m.name, m.signature, sum(p.incl_{clock}_ns), "
        f"sum(p.excl_{clock}_ns), sum(p.calls + p.recursive_calls) "
        f"FROM profile p JOIN methods m USING (trace_id, method) WHERE p.trace_id IN ({marks}) "
        "GROUP BY p.trace_id, p.method, m.class_name, m.name, m.signature "
        "ORDER BY p.trace_id, p.method",
        ids,
    ).rows
    threads = sql(
        root,
        f"SELECT trace_id, label, main, total_{clock}_ns, calls FROM threads "
        f"WHERE selected AND trace_id IN ({marks}) ORDER BY trace_id, thread",
        ids,
    ).rows
    by_trace = {k: list(g) for k, g in groupby(methods, key=lambda r: r[0])}
    threads_of = {k: list(g) for k, g in groupby(threads, key=lambda r: r[0])}
    out = []
    for tid, name, _, _, sampled in traces:
        mine, theirs = by_trace.get(tid, []), threads_of.get(tid, [])
        out.append(
            Run(
                source=str(name),
                clock=clock,
                keys=[method_key(str(r[1]), str(r[2]), str(r[3])) for r in mine],
                incl=_floats(r[4] for r in mine),
                excl=_floats(r[5] for r in mine),
                calls=_floats(r[6] for r in mine),
                thread_names=[thread_key(str(r[1]), bool(r[2])) for r in theirs],
                thread_total=_floats(r[3] for r in theirs),
                thread_calls=_floats(r[4] for r in theirs),
                sampled=bool(sampled),
            )
        )
    return out, clock


@dataclass(frozen=True)
class Point:
    """One trace's time of a method: its build, date, name and id, inclusive and exclusive
    ns on the clock (0 when the trace never called it)."""

    build: str
    date: str
    name: str
    trace_id: str
    incl_ns: int
    excl_ns: int


def method_points(root: Path, method_key: int, app: str, clock: str) -> list[Point]:
    """Every trace of `app`'s time in the method `method_key` (summed over threads), by
    build, date and name."""
    if clock not in ("cpu", "wall"):
        raise ValueError(f"no clock {clock!r}: cpu or wall")
    rows = sql(
        root,
        f"SELECT t.build, t.date, t.name, t.trace_id, coalesce(sum(p.incl_{clock}_ns), 0), "
        f"coalesce(sum(p.excl_{clock}_ns), 0) FROM traces t "
        "LEFT JOIN profile p ON p.trace_id = t.trace_id AND p.method_key = ? "
        "WHERE t.app = ? GROUP BY t.build, t.date, t.name, t.trace_id "
        "ORDER BY t.build, t.date, t.name, t.trace_id",
        [method_key, app],
    ).rows
    return [Point(str(b), str(d), str(n), str(t), int(i), int(e)) for b, d, n, t, i, e in rows]


def _floats(values: Iterable[Any]) -> F64:
    return np.fromiter((float(v or 0) for v in values), dtype=np.float64)


__all__ = ["COLUMNS", "Point", "choose", "method_points", "runs"]
