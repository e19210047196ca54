"""The template library: every thread kind's call trees built once per seed, flattened into
numpy arrays, and `tile()` which repeats chosen templates into one long event sequence.

This is where the generator's Python loops end: building the library costs the same for
1k or 100M records; everything after it is array arithmetic.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from traceview.synth.callbuilder import CallBuilder, Catalog, Template
from traceview.synth.threadkinds import FILL, KINDS, STOP

VARIANTS = 12  # templates per scenario: enough variety once each instance is rescaled


@dataclass(frozen=True)
class Library:
    """All templates, concatenated: `start[k]`, `length[k]` index the event columns."""

    catalog: Catalog
    action: npt.NDArray[np.uint8]
    method: npt.NDArray[np.int32]
    cpu: npt.NDArray[np.int64]
    wall: npt.NDArray[np.int64]
    idle: npt.NDArray[np.bool_]
    start: npt.NDArray[np.int64]
    length: npt.NDArray[np.int64]
    kinds: dict[str, tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]]  # ids, probs
    tails: dict[str, Template]  # per kind: returning from the frames on the stack at start
    app: npt.NDArray[np.bool_]  # per catalogue row: the app's own code (com.example.)

    def wall_per_event(self, kind: str) -> float:
        """Mean µs of wall time per event in `kind`'s templates (sets its share of records)."""
        ids, probs = self.kinds[kind]
        acc = np.concatenate([[0], np.cumsum(self.wall)])
        sums = acc[self.start[ids] + self.length[ids]] - acc[self.start[ids]]
        return float((sums * probs).sum() / (self.length[ids] * probs).sum())


def columns(templates: list[Template]) -> tuple[npt.NDArray[np.int64], ...]:
    """The templates' events end to end: action, method, cpu, wall and idle columns."""

    def col(name: str) -> npt.NDArray[np.int64]:
        return np.fromiter(
            (v for t in templates for v in getattr(t, name)),
            dtype=np.int64,
            count=sum(len(t.action) for t in templates),
        )

    return tuple(col(n) for n in ("action", "method", "cpu", "wall", "idle"))


@lru_cache(maxsize=8)
def library(seed: int) -> Library:
    """Build (once per seed) every scenario of every thread kind, `VARIANTS` times each."""
    catalog = Catalog()
    templates: list[Template] = []
    kinds: dict[str, tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]] = {}
    for k, kind in enumerate(KINDS):
        ids, probs = [], []
        for s, (scenario, weight) in enumerate(kind.body):
            for v in range(VARIANTS):
                b = CallBuilder(catalog, random.Random(seed * 1_000_003 + k * 1009 + s * 101 + v))
                scenario(b)
                assert not b.stack, f"{kind.key}: {scenario.__name__} is not balanced"
                ids.append(len(templates))
                probs.append(weight / VARIANTS)
                templates.append(b.done())
        p = np.array(probs)
        kinds[kind.key] = (np.array(ids, dtype=np.int64), p / p.sum())
    tails = {}
    for k, kind in enumerate(KINDS):
        for spec in (*kind.base, *kind.transient):
            catalog.row(spec)
        b = CallBuilder(catalog, random.Random(seed * 7919 + k), stack=kind.transient)
        if kind.tail is not None:
            kind.tail(b)
        while b.stack:
            b.work(b.u(2, 60))
            b.exit()
        tails[kind.key] = b.done()
    for spec in (*STOP, FILL):
        catalog.row(spec)
    action, method, cpu, wall, idle = columns(templates)
    length = np.array([len(t.action) for t in templates], dtype=np.int64)
    return Library(
        catalog=catalog,
        action=action.astype(np.uint8),
        method=method.astype(np.int32),
        cpu=cpu,
        wall=wall,
        idle=idle.astype(bool),
        start=np.cumsum(length) - length,
        length=length,
        kinds=kinds,
        tails=tails,
        app=np.array([s[0].startswith("com.example.") for s in catalog.specs], dtype=bool),
    )


def tile(lib: Library, ids: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], ...]:
    """Library event indices of templates `ids` one after another, and each event's instance."""
    lens = lib.length[ids]
    total = int(lens.sum())
    first = np.cumsum(lens) - lens
    inst = np.repeat(np.arange(len(ids), dtype=np.int64), lens)
    index = np.arange(total, dtype=np.int64) + (lib.start[ids] - first)[inst]
    return index, inst


def draw(lib: Library, kind: str, events: int, rng: np.random.Generator) -> npt.NDArray[np.int64]:
    """Template ids of `kind` drawn until they hold at least `events` events."""
    ids, probs = lib.kinds[kind]
    mean = float((lib.length[ids] * probs).sum())
    out: list[npt.NDArray[np.int64]] = []
    have = 0
    while have < events:
        more = rng.choice(ids, size=int((events - have) / mean * 1.1) + 4, p=probs)
        out.append(more)
        have += int(lib.length[more].sum())
    return np.concatenate(out) if out else np.zeros(0, np.int64)
