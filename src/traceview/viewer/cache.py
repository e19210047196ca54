"""The viewer's answer cache: encoded JSON per request, bounded in bytes (least recently used
answers go first), so no stream of requests can grow the server.

A key is any hashable value: the viewer's routes use the path and the request's known
parameters as normalised by `viewer/params.py` (`(path, (name, value), ...)`); the service adds
its own string keys for the pages it builds."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

MAX_BYTES = 64 << 20  # encoded answers kept per trace (as the service; a 1 GB trace needs the room)
MAX_ENTRY = 32 << 20  # an answer bigger than this is served but not kept


class AnswerCache:
    """`get(key, compute)`: the answer for `key`, computed once while it stays cached."""

    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self.size = 0
        self._items: OrderedDict[Hashable, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, compute: Callable[[], bytes]) -> bytes:
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
                return hit
        data = compute()  # outside the lock: a slow profile must not hold up the tiles
        if len(data) > min(MAX_ENTRY, self.max_bytes):
            return data
        with self._lock:
            old = self._items.pop(key, None)
            self.size -= len(old) if old is not None else 0
            self._items[key] = data
            self.size += len(data)
            while self.size > self.max_bytes:
                _, dropped = self._items.popitem(last=False)
                self.size -= len(dropped)
        return data

    def __len__(self) -> int:
        return len(self._items)
