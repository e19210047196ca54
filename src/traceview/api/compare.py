"""The Python API's comparison of runs: `traceview.compare(baseline, candidate, ...)` takes
each side's traces one at a time (traces, selections, views, or what `load` opens: the
package's `traceview.compare` passes the readers' `load` for paths and bytes), keeps what a
comparison needs (`analysis.compare.summarise_run`) and returns the `Comparison`; its rows per
method and per call path as `Table`s (`methods_table`, `paths_table`): the numbers
`traceview diff --json` writes (docs/diff.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from os import PathLike
from typing import Any

import numpy as np

from traceview.analysis.compare import Comparison, summarise_run
from traceview.analysis.compare import compare as compare_runs
from traceview.analysis.diff import Run, Thresholds
from traceview.analysis.paths import PathDiff
from traceview.analysis.significance import Change
from traceview.analysis.view import View
from traceview.api.selection import Selection
from traceview.api.table import Column, Table
from traceview.model import Trace, visible

Source = str | PathLike[str] | bytes | Trace | View | Selection


def compare(
    baseline: Source | Sequence[Source],
    candidate: Source | Sequence[Source],
    thresholds: Thresholds | None = None,
    *,
    thread: str | int | Sequence[str | int] | None = None,
    start: str | int | None = None,
    end: str | int | None = None,
    clock: str | None = None,
    my_code: str | Sequence[str] | None = None,
    load: Callable[[Any], Trace] | None = None,
) -> Comparison:
    """Compare the baseline runs with the candidate runs: each a trace (path, bytes, `Trace`)
    selected with the same words on both sides (threads by name, a range from each trace's
    start, a clock, "my code"), or a ready `View` / `Selection`. Each trace is let go once
    summarised, so many large runs fit in memory."""
    words: dict[str, Any] = {
        "thread": thread,
        "start": start,
        "end": end,
        "clock": clock,
        "my_code": my_code,
    }

    def run(source: Source) -> Run:
        if isinstance(source, Selection):
            return summarise_run(source.view)
        if isinstance(source, View):
            return summarise_run(source)
        from traceview.api import Session

        if isinstance(source, Trace):
            trace = source
        elif load is not None:
            trace = load(source)
        else:
            raise TypeError(f"cannot open {type(source).__name__} without a loader")
        return summarise_run(Session(trace).select(**words).view)

    def side(sources: Source | Sequence[Source]) -> list[Run]:
        single = isinstance(sources, str | bytes | PathLike | Trace | View | Selection)
        items: Sequence[Source] = [sources] if single else sources  # type: ignore[list-item,assignment]
        return [run(s) for s in items]

    return compare_runs(side(baseline), side(candidate), thresholds)


def _change(prefix: str, ch: Change, rows: Any = slice(None)) -> dict[str, Column]:
    """A `Change` as columns: medians per side, Δ, relative Δ, t, significant."""
    return {
        f"{prefix}_base": ch.base[rows],
        f"{prefix}_cand": ch.cand[rows],
        f"{prefix}_delta": ch.delta[rows],
        f"{prefix}_rel": ch.rel[rows],
        f"{prefix}_t": ch.t[rows],
        f"{prefix}_significant": ch.significant[rows],
    }


def methods_table(c: Comparison) -> Table:
    """One row per method seen on either side: identity, `state` (new, gone, slower, faster,
    noise), the gate's `status`, presence, and per measure (`incl_ns`, `excl_ns`, `calls`)
    the medians, change, relative change, t and significance."""
    m = c.methods
    return Table(
        {
            "class_name": np.array([visible(x) for x in m.class_name], dtype=object),
            "name": np.array([visible(x) for x in m.name], dtype=object),
            "signature": np.array([visible(x) for x in m.signature], dtype=object),
            "state": np.array([m.state_name(i) for i in range(len(m))], dtype=object),
            "status": np.array(m.status, dtype=object),
            "gated": m.gated,
            "on_baseline": m.on_base,
            "on_candidate": m.on_cand,
            **_change("incl_ns", m.incl),
            **_change("excl_ns", m.excl),
            **_change("calls", m.calls),
        },
        len(m),
    )


def paths_table(c: Comparison, kind: str = "topdown") -> Table:
    """One row per call path seen on either side, in depth-first pre-order: `parent` (the row
    of its caller, -1 for a thread), `depth`, `frame` (`class.method signature`, a thread's
    name at the roots), `state`, `gated`, presence, and per measure the medians, change,
    relative change, t and significance. `kind` "bottomup": roots are methods, children
    their callers."""
    paths: PathDiff | None = c.paths if kind == "topdown" else c.bottom_up
    if kind not in ("topdown", "bottomup"):
        raise ValueError(f"kind must be topdown or bottomup, not {kind!r}")
    if paths is None:
        raise ValueError("these runs were summarised without their call paths")
    labels = [visible(c.frames.label(f)) for f in range(len(c.frames))]
    return Table(
        {
            "parent": paths.parent.astype(np.int64),
            "depth": paths.depth.astype(np.int64),
            "frame": np.array([labels[int(f)] for f in paths.frame], dtype=object),
            "state": np.array([paths.state_name(i) for i in range(len(paths))], dtype=object),
            "gated": paths.gated,
            "on_baseline": paths.on_base,
            "on_candidate": paths.on_cand,
            **_change("incl_ns", paths.incl),
            **_change("excl_ns", paths.excl),
            **_change("calls", paths.calls),
        },
        len(paths),
    )


__all__ = ["Comparison", "Thresholds", "compare", "methods_table", "paths_table"]
