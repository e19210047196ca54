"""The service's open traces: one viewer (an `analysis.Session` and its answer cache) per trace
id, loaded on first request and evicted, least recently used first, when the estimated bytes
of all of them pass a memory budget.

A session's size is estimated from what it holds: the numpy arrays and name tables reachable
from it (trace tables, call table, cached profiles, trees and timeline) plus its encoded
answers. Sessions grow as views are asked for, so they are measured again whenever a trace
is opened and at most every few seconds while they are used (`due`, `trim`).
"""

from __future__ import annotations

import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, fields, is_dataclass
from typing import Any

import numpy as np

from traceview.analysis.session import Session

BUDGET = 4 << 30  # bytes of analysed traces kept in memory
SAMPLE = 64  # a long tuple of names is measured from this many entries
REMEASURE = 5.0  # seconds between two measures of the open traces (a measure walks them all)


def estimate(root: Any, limit: int = 200_000) -> int:
    """Bytes held by `root`: numpy arrays (each counted once) and strings reachable through
    attributes, dataclass fields, dicts, lists and tuples; at most `limit` objects visited."""
    seen: set[int] = set()
    total = 0
    stack = [root]
    while stack and len(seen) < limit:
        obj = stack.pop()
        if id(obj) in seen or obj is None or isinstance(obj, int | float | bool):
            continue
        seen.add(id(obj))
        if isinstance(obj, np.ndarray):
            base = obj.base if isinstance(obj.base, np.ndarray) else obj
            if base is obj or id(base) not in seen:
                seen.add(id(base))
                total += base.nbytes
        elif isinstance(obj, str | bytes):
            total += sys.getsizeof(obj)
        elif isinstance(obj, tuple | list):
            if len(obj) > SAMPLE and all(isinstance(x, str) for x in obj[:SAMPLE]):
                part = sum(sys.getsizeof(x) for x in obj[:SAMPLE])
                total += sys.getsizeof(obj) + part * len(obj) // SAMPLE
            else:
                stack.extend(obj)
        elif isinstance(obj, dict):
            stack.extend(obj.values())
        elif is_dataclass(obj) and not isinstance(obj, type):
            stack.extend(getattr(obj, f.name, None) for f in fields(obj))
        elif hasattr(obj, "__dict__") and not callable(obj):
            stack.extend(vars(obj).values())
    return total


@dataclass
class Entry:
    """One open trace: its session, what the service serves from it (the viewer app), and
    the bytes it was last measured at."""

    session: Session
    app: Any
    answers: Callable[[], int]
    size: int = 0

    def measure(self) -> int:
        """Estimate the entry's bytes again (views added since grow it)."""
        self.size = estimate(self.session) + self.answers()
        return self.size


class SessionCache:
    """Open traces by id within `budget` bytes; `get(id, open)` loads through `open` once even
    when many requests ask at the same time (call it from a worker thread)."""

    def __init__(self, budget: int = BUDGET) -> None:
        self.budget = budget
        self._items: OrderedDict[str, Entry] = OrderedDict()
        self._lock = threading.Lock()
        self._gates: dict[str, threading.Lock] = {}
        self._measured = 0.0

    def peek(self, key: str) -> Entry | None:
        """The entry of `key` when open (marked as just used), else None; never blocks on a
        load, so the event loop may call it."""
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
            return hit

    def due(self) -> bool:
        """True (once) when the open traces were last measured more than REMEASURE seconds
        ago: the caller then runs `trim()`."""
        with self._lock:
            if time.monotonic() - self._measured <= REMEASURE:
                return False
            self._measured = time.monotonic()
            return True

    def get(self, key: str, open_entry: Callable[[], Entry]) -> Entry:
        """The entry of `key`, opened with `open_entry` when not cached."""
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
                return hit
            gate = self._gates.setdefault(key, threading.Lock())
        with gate:
            with self._lock:
                hit = self._items.get(key)
            if hit is None:
                hit = open_entry()
                hit.measure()
                with self._lock:
                    self._items[key] = hit
                    self._gates.pop(key, None)
                self.trim()
        return hit

    def trim(self) -> None:
        """Measure every entry and drop the least recently used past the budget (the newest
        stays, however big: the trace being looked at is always served)."""
        self._measured = time.monotonic()
        with self._lock:
            entries = list(self._items.items())
        sizes = {k: e.measure() for k, e in entries}
        with self._lock:
            total = sum(sizes.get(k, e.size) for k, e in self._items.items())
            while total > self.budget and len(self._items) > 1:
                _, dropped = self._items.popitem(last=False)
                total -= dropped.size

    def drop(self, key: str) -> None:
        """Forget `key` (its trace was deleted)."""
        with self._lock:
            self._items.pop(key, None)

    def sizes(self) -> dict[str, int]:
        """Bytes per open trace as last measured, least recently used first."""
        with self._lock:
            return {k: e.size for k, e in self._items.items()}
