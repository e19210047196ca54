"""The service's knobs (`Config`, read by `traceview serve`) and the worker pools they size
(`Pools`): blocking work of every route runs there, off the event loop."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import anyio
import anyio.to_thread

from traceview.service.probe import Limits
from traceview.service.sessions import BUDGET
from traceview.viewer.guard import Timeouts

MAX_UPLOAD = 2 << 30
ANSWER_BYTES = 64 << 20  # encoded answers kept per open trace (counted in the memory budget)
T = TypeVar("T")


@dataclass(frozen=True)
class Config:
    """The service's knobs: upload limit (bytes), token (None: anyone may upload/delete),
    memory budget of open traces, per-upload analysis limits, how many checks and loads run
    at once, how many uploads may be in flight (more get 503) and how long a client may stall
    (a stalled upload is cut off with 408, so its slot comes back)."""

    max_upload: int = MAX_UPLOAD
    token: str | None = None
    memory_budget: int = BUDGET
    limits: Limits = field(default_factory=Limits)
    analysers: int = 2
    loaders: int = 2
    pending: int = 64  # uploads in flight at once (each may stage up to max_upload bytes)
    dataset: Path | None = None  # where uploads are added as a dataset (service/feed.py)
    timeouts: Timeouts = field(default_factory=Timeouts)


class Pools:
    """Capacity limiters, made on first use (they belong to the running event loop)."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.analyse: anyio.CapacityLimiter | None = None
        self.load: anyio.CapacityLimiter | None = None
        self.feed: anyio.CapacityLimiter | None = None
        self.uploads = 0  # in flight

    async def run(self, kind: str, fn: Callable[[], T]) -> T:
        """`fn()` in a worker thread: "analyse" (upload checks) and "load" (opening a stored
        trace) each have their own small pool, "feed" (the dataset, service/feed.py) one
        thread (the others wait without one); "store" (index and file work) the default."""
        if self.analyse is None or self.load is None or self.feed is None:
            self.analyse = anyio.CapacityLimiter(self.config.analysers)
            self.load = anyio.CapacityLimiter(self.config.loaders)
            self.feed = anyio.CapacityLimiter(1)
        limiter = {"analyse": self.analyse, "load": self.load, "feed": self.feed}.get(kind)
        return await anyio.to_thread.run_sync(fn, limiter=limiter)


__all__ = ["MAX_UPLOAD", "Config", "Pools"]
