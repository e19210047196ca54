"""Comparing two sides, each one run or many: per method (analysis/diff.py: medians, spread,
the CI gate) and per call path (analysis/paths.py), with the differential flame graph of the
paths as data (analysis/layout/diffflame.py).

`compare(baseline, candidate, thresholds, ask, ask_candidate) -> Comparison`: each side is a
sequence of sessions, views or run summaries (`summarise_run(view)`, so a front end can let
each trace go once summarised); `ask` is the user's words (`analysis.ask.Ask`: threads by
name, a range, "my code", a renaming — one per side when the builds differ), resolved against
each session by `Session.resolve` as every front end's words are; by default the session's
own defaults. Runs are matched as `docs/diff.md` says: methods by identity (class + name +
signature after renaming), threads by name ("main" for each run's main thread), call paths
by their sequence of frames (a thread, then methods). Pure: no I/O, nothing printed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from functools import cached_property

import numpy as np

from traceview.analysis.ask import Ask
from traceview.analysis.diff import (
    DiffView,
    Run,
    Thresholds,
    diff,
    method_key,
    name_filter,
    summarise,
    thread_key,
)
from traceview.analysis.layout.diffflame import SIDES, DiffFlame, diff_flame
from traceview.analysis.paths import (
    Forest,
    Frame,
    FrameIndex,
    Judging,
    PathDiff,
    align,
    forest_of,
    inverted,
)
from traceview.analysis.session import Session
from traceview.analysis.view import View


@dataclass(frozen=True, eq=False)
class Comparison(DiffView):
    """A finished comparison: the per-method and per-thread `DiffView` (what the CI gate and
    the `diff` exporters read), plus the call paths. `frames` names every frame of a path;
    `paths` is the top-down tree of paths of both sides aligned (`PathDiff`); `forests` the
    runs' own forests (frames shared), kept for the bottom-up tree (`bottom_up()`)."""

    frames: FrameIndex = field(default_factory=FrameIndex)
    paths: PathDiff | None = None
    forests: tuple[tuple[Forest, ...], tuple[Forest, ...]] = ((), ())
    judging: Judging | None = None

    @cached_property
    def bottom_up(self) -> PathDiff | None:
        """Bottom-up paths of both sides aligned: roots are methods (their exclusive time),
        children their callers, the thread last."""
        if self.judging is None:
            return None
        base, cand = ([inverted(f) for f in side] for side in self.forests)
        return align(base, cand, self.judging, kind="bottomup")

    def diff_flame(self, side: str = "candidate", min_fraction: float = 0.0) -> DiffFlame:
        """The differential flame graph of the top-down paths: widths the `side`'s median
        inclusive time ("candidate" or "baseline"), colours the change (layout/diffflame.py)."""
        if side not in SIDES:
            raise ValueError(f"side must be candidate or baseline, not {side!r}")
        if self.paths is None:
            raise ValueError("these runs were summarised without their call paths")
        names = [self.frames.label(f) for f in range(len(self.frames))]
        return diff_flame(self.paths, names, side, self.thresholds.metric, min_fraction)

    def path_names(self, paths: PathDiff, row: int) -> list[str]:
        """The frames of path `row` of `paths`, root first, as `class.method` (a thread: its
        name)."""
        return [self.frames.name(int(paths.frame[r])) for r in paths.steps(row)]


def summarise_run(view: View) -> Run:
    """What a comparison keeps of one run: its per-method and per-thread numbers
    (`diff.summarise`) and its merged trees, one per selected thread, as a forest over its
    frames. The call table is built first, so the profile comes from it too."""
    session, q = view.session, view.query
    session.calls  # noqa: B018 - the table once, for the profile and every tree
    run = summarise(view)
    me, th = view.methods, view.trace.threads
    main = session.main_thread()
    rows = range(len(th)) if q.threads is None else q.threads
    parts = []
    for t in rows:
        if session.thread_records[t] == 0:
            continue
        tree = session.top_down(replace(q, threads=(int(t),)))
        if not len(tree):
            continue
        parts.append(
            (
                len(me) + int(t),
                tree.parent,
                tree.method,
                tree.calls,
                tree.incl[q.clock],
                tree.excl[q.clock],
            )
        )
    forest = forest_of(parts)
    used, local = np.unique(forest.frame, return_inverse=True)
    frames: list[Frame] = []
    for f in used.tolist():
        if f >= len(me):
            t = f - len(me)
            frames.append(("thread", thread_key(th.label(t), t == main)))
        else:
            frames.append(method_key(me.class_name[f], me.name[f], me.signature[f]))
    compact = Forest(forest.parent, local.astype(np.int32), forest.calls, forest.incl, forest.excl)
    return replace(run, forest=compact, frames=tuple(frames))


def compare(
    baseline: Sequence[Session | View | Run],
    candidate: Sequence[Session | View | Run],
    thresholds: Thresholds | None = None,
    ask: Ask | None = None,
    ask_candidate: Ask | None = None,
) -> Comparison:
    """Compare the runs of `baseline` with those of `candidate` (each at least one run, all
    on one clock): each session's query is its resolution of the words `ask`
    (`ask_candidate` for the candidate's, default `ask`; default: the session's defaults)."""
    th = thresholds or Thresholds()
    base = [_run(x, ask) for x in baseline]
    cand = [_run(x, ask_candidate or ask) for x in candidate]
    dv = diff(base, cand, th)
    core = {f.name: getattr(dv, f.name) for f in fields(DiffView)}
    if any(r.forest is None for r in (*base, *cand)):
        return Comparison(**core)
    frames = FrameIndex()
    forests = tuple(
        tuple(r.forest.renumbered(frames.ids(r.frames)) for r in side if r.forest is not None)
        for side in (base, cand)
    )
    match = name_filter(th.methods)
    chosen = np.array(
        [len(k) == 2 or match(frames.name(f), k[2]) for f, k in enumerate(frames.keys)],
        dtype=bool,
    )
    judging = Judging(th.metric, th.fail_above, th.min_time_ns, dv.critical, chosen)
    paths = align(forests[0], forests[1], judging)
    return Comparison(
        **core, frames=frames, paths=paths, forests=(forests[0], forests[1]), judging=judging
    )


def _run(x: Session | View | Run, ask: Ask | None) -> Run:
    if isinstance(x, Run):
        return x
    view = x if isinstance(x, View) else View(x, x.resolve(ask).query if ask else x.query())
    return summarise_run(view)


__all__ = ["Comparison", "compare", "summarise_run"]
