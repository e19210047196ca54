"""The viewer's warm-up: what its first screens ask for, built in the background once the server
is ready, always giving way to requests.

A session's `Gate` counts the requests being answered (`serving()`, entered by the viewer
around each answer it computes); the warm-up waits for none before each of its steps, so a
request never shares the cores with warm-up work that does not serve it, and the two never
build the same thing twice: every step goes through the session's caches (`Memo`, the
timeline's per-thread locks), so a request asking for what the warm-up is building waits for
that one build instead of starting another. A step cannot be stopped once begun; the steps are
kept short: one thread's timeline levels at a time, a few levels per pass.

Order: the call table (keeping only the events' time columns, analysis/timecols.py), the
default profile (the method colours and the table), the first timeline levels of every thread
(the first paint), the merged tree of the whole trace (every clock's flame graph, top-down and
bottom-up), then the deeper timeline levels, biggest thread first. The steps before the
merged tree run native code only (the call table, the profile and the level indexes: shipped
with the install, kernels/native.py); the tree's kernels run through numba, so the warm-up
first calls `session.before_kernels()` (the viewer waits there for the process filling
numba's cache, cli/precompile.py). A small trace (analysis/small.py) stops after its first
screen's steps: loading numba (half a second, holding the interpreter) would only slow the
first requests; a flame graph asked for later loads them then.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from traceview.analysis.kernels.tiling import MAX_LEVEL
from traceview.analysis.small import is_small

if TYPE_CHECKING:
    from traceview.analysis.session import Session

FIRST_LEVELS = 3  # the timeline levels a first screen's tiles come from
LEVEL_STEPS = (6, MAX_LEVEL + 1)  # then levels below 6, then the rest


class Gate:
    """The requests being answered now, and a way for background work to wait for none."""

    def __init__(self) -> None:
        self._serving = 0
        self._cond = threading.Condition()
        self.waits = 0  # times the background work found a request and waited (tests read it)

    @contextmanager
    def serving(self) -> Iterator[None]:
        """Held while one request is answered."""
        with self._cond:
            self._serving += 1
        try:
            yield
        finally:
            with self._cond:
                self._serving -= 1
                if not self._serving:
                    self._cond.notify_all()

    @property
    def busy(self) -> bool:
        """True while some request is being answered."""
        return self._serving > 0

    def idle(self) -> None:
        """Return once no request is being answered."""
        with self._cond:
            if self._serving:
                self.waits += 1
                self._cond.notify_all()  # wakes `wait_for_waiter`
            self._cond.wait_for(lambda: self._serving == 0)

    def wait_for_waiter(self) -> None:
        """Block until some background work has waited at least once (tests: the warm-up,
        whose first step is `idle`, has reached the gate while a request is held)."""
        with self._cond:
            self._cond.wait_for(lambda: self.waits > 0)


def warm(session: Session) -> None:
    """Build, step by step, what the viewer's first screens ask for (see the module doc)."""
    step = session.gate.idle
    step()
    session.release_records()
    step()
    session.profile(session.query())
    step()
    tl = session.timeline()
    if is_small(len(session.calls), len(session.trace.threads)):
        return
    order = tl.biggest_first()
    for t in order:
        step()
        tl.prepare(t, FIRST_LEVELS)
    session.before_kernels()
    step()
    session.top_down(session.query())
    for levels in LEVEL_STEPS:
        for t in order:
            step()
            tl.prepare(t, levels)
