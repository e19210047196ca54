"""`Memo`: a session's caches — one small LRU per kind of value (profiles, trees, a room's own
numbers such as dmtracedump's), each value built once even when two threads ask at once.

The session owns one (`Session.memo(kind, key, build)`), so everything derived from a trace
lives and dies with its session: no module keeps a cache of its own.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar, cast

T = TypeVar("T")


class Memo:
    """Per kind, the `size` values used last (a kind's store is an LRU of its own, so one kind
    never evicts another's)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._stores: dict[str, OrderedDict[Hashable, Any]] = {}
        self._gates: dict[tuple[str, Hashable], threading.Lock] = {}

    def get(self, kind: str, key: Hashable, build: Callable[[], T]) -> T:
        """The value of `kind` for `key`, built once: a second request for a key being built
        waits for it (the background warm-up and the first click ask for the same tree)."""
        with self._lock:
            store = self._stores.setdefault(kind, OrderedDict())
            if key in store:
                store.move_to_end(key)
                return cast(T, store[key])
            gate = self._gates.setdefault((kind, key), threading.Lock())
        with gate:
            with self._lock:
                if key in store:
                    return cast(T, store[key])
            try:
                value = build()
            except BaseException:
                with self._lock:  # the next request tries again
                    self._gates.pop((kind, key), None)
                raise
            with self._lock:
                store[key] = value
                while len(store) > self.size:
                    store.popitem(last=False)
                self._gates.pop((kind, key), None)
        return value

    def keys(self, kind: str) -> list[Hashable]:
        """The keys of `kind` held now, least recently used first."""
        with self._lock:
            return list(self._stores.get(kind, ()))
