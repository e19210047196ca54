"""The viewer in compare mode: the sessions of both sides (the first run of each draws its
timeline; every run counts in the numbers) and their comparisons per selection.

A selection is the user's words (`Ask`: clock, thread names, "my code"), resolved against
every session of both sides by `Session.resolve` (analysis/compare.py). Threads are named,
not numbered, since each trace numbers its own; a time range belongs to one trace's axis and
is not offered. A few comparisons are kept (least recently used go first); each is computed
once while kept.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt

from traceview.analysis.ask import Ask
from traceview.analysis.compare import Comparison, compare
from traceview.analysis.diff import Key, Thresholds, method_key
from traceview.analysis.query import Rename
from traceview.analysis.session import Session

SIDES = ("base", "cand")
WORDS = ("clock", "thread", "mycode", "metric")  # the parameters of the /api/compare answers
KEPT = 8  # comparisons kept


@dataclass(frozen=True)
class Sides:
    """Both sides' sessions (each at least one), the gate's thresholds and each side's
    renaming (a mapping per build)."""

    base: tuple[Session, ...]
    cand: tuple[Session, ...]
    thresholds: Thresholds = field(default_factory=Thresholds)
    rename: Rename | None = None
    rename_cand: Rename | None = None

    def first(self, side: str) -> Session:
        """The session whose timeline and trace answers a side shows."""
        if side not in SIDES:
            raise ValueError(f"side must be base or cand, not {side!r}")
        return self.base[0] if side == "base" else self.cand[0]

    def renaming(self, side: str) -> Rename | None:
        """The renaming of `side`'s names."""
        return self.rename if side == "base" else (self.rename_cand or self.rename)


def words(p: Mapping[str, str], rename: Rename | None) -> Ask:
    """The selection words of a compare request (thread names, clock, "my code")."""
    return Ask(
        threads=tuple(s for s in p.get("thread", "").split(",") if s.strip()),
        clock=p.get("clock") or None,
        my_code=(p["mycode"],) if p.get("mycode") else (),
        rename=rename,
    )


class Comparisons:
    """The comparisons of `sides` per selection, computed once while kept."""

    def __init__(self, sides: Sides) -> None:
        self.sides = sides
        self._kept: OrderedDict[tuple[tuple[str, str], ...], Comparison] = OrderedDict()
        self._keys: dict[str, dict[Key, int]] = {}
        self._lock = threading.Lock()

    def get(self, p: Mapping[str, str]) -> Comparison:
        """The comparison for the request's words (ValueError on a bad word)."""
        key = tuple((k, p[k]) for k in WORDS if p.get(k))
        with self._lock:
            hit = self._kept.get(key)
            if hit is not None:
                self._kept.move_to_end(key)
                return hit
        s = self.sides
        th = s.thresholds
        if p.get("metric"):
            if p["metric"] not in ("incl", "excl"):
                raise ValueError(f"metric must be incl or excl, not {p['metric']!r}")
            th = replace(th, metric=p["metric"])
        clock = p.get("clock") or s.base[0].default_clock
        if any(clock not in x.clocks for x in (*s.base, *s.cand)):
            raise ValueError(f"both sides need the {clock} clock")
        base_words = replace(words(p, s.renaming("base")), clock=clock)
        cand_words = replace(words(p, s.renaming("cand")), clock=clock)
        c = compare(list(s.base), list(s.cand), th, base_words, cand_words)
        with self._lock:
            self._kept[key] = c
            while len(self._kept) > KEPT:
                self._kept.popitem(last=False)
        return c

    def rows_of(self, side: str, keys: Sequence[Key]) -> npt.NDArray[np.int64]:
        """The method row of each key in `side`'s first session (-1 where it has none)."""
        session = self.sides.first(side)
        rename = self.sides.renaming(side)
        index = self._keys.get(side)
        if index is None:
            me = session.methods(session.query(rename=rename))
            index = {
                method_key(me.class_name[i], me.name[i], me.signature[i]): i for i in range(len(me))
            }
            self._keys[side] = index
        return np.array([index.get(k, -1) for k in keys], dtype=np.int64)


__all__ = ["SIDES", "WORDS", "Comparisons", "Sides", "words"]
