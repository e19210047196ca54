"""Small call-tree templates for the generator: a method catalogue and a builder of events.

Scenario code (`writer.ui_scenarios`, `writer.background_scenarios`) describes a few hundred
call trees with `CallBuilder`; `writer.generate` then tiles and offsets them with numpy.
Nothing here runs per output record.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

ENTER, EXIT, UNROLL = 0, 1, 2
# app features: `{f}` in a spec is the package (`feed`), `{F}` the class prefix (`Feed`), and
# `{k}` a lambda index, fixed per template so each call tree stays in one feature
FEATURES = ("feed", "profile", "search", "chat", "cart", "settings", "explore", "inbox", "stories")


def split_spec(spec: str) -> tuple[str, str, str]:
    """`pkg.Class.method(args)ret` -> (class, method, signature)."""
    head, paren, rest = spec.partition("(")
    cls, _, name = head.rpartition(".")
    return cls, name, (paren + rest) if paren else "()V"


def source_file(cls: str) -> str:
    """The source file a class is compiled from, as dex debug info would name it."""
    outer = cls.rsplit(".", 1)[-1].split("$", 1)[0]
    if cls.startswith("kotlin.") and outer.endswith("Kt") and "__" in outer:
        return "_" + outer.split("__", 1)[1].removesuffix("Kt") + ".kt"  # CollectionsKt___Coll…
    if cls.startswith("kotlin.") and outer.endswith("Kt"):
        return outer.removesuffix("Kt") + ".kt"
    kotlin = cls.startswith(("com.example.", "kotlinx.", "kotlin.", "okhttp3.", "okio."))
    return outer + (".kt" if kotlin else ".java")


@dataclass
class Catalog:
    """Methods in first-use order: spec -> row, with class, name, signature, file and line."""

    rows: dict[str, int] = field(default_factory=dict)
    specs: list[tuple[str, str, str, str, int]] = field(default_factory=list)

    def row(self, spec: str) -> int:
        """The row of `spec`, added on first use."""
        found = self.rows.get(spec)
        if found is None:
            cls, name, sig = split_spec(spec)
            line = 20 + zlib.crc32(spec.encode()) % 1400
            found = self.rows[spec] = len(self.specs)
            self.specs.append((cls, name, sig, source_file(cls), line))
        return found


@dataclass
class Template:
    """The events of one call tree: action, method row, µs deltas before each event, idle mark.

    An idle event is one whose wall delta may grow when the thread has wall time to spend
    (the exit of nativePollOnce, Unsafe.park, Object.wait; the first enter after a gap).
    """

    action: list[int]
    method: list[int]
    cpu: list[int]
    wall: list[int]
    idle: list[bool]


class CallBuilder:
    """Records enter/exit/unroll events with the thread-CPU and wall time spent before each."""

    def __init__(self, catalog: Catalog, rng: random.Random, stack: tuple[str, ...] = ()) -> None:
        self.catalog, self.rng = catalog, rng
        self.t = Template([], [], [], [], [])
        self.feature = rng.choice(FEATURES)
        self.lambda_index = rng.choice(("0", "0", "1", "2"))
        self.stack: list[int] = [catalog.row(s) for s in stack]  # frames entered before us
        self._cpu = self._wall = 0
        self._idle = False

    def _event(self, action: int, row: int) -> None:
        overhead = self.rng.choice((0, 0, 1, 1, 1, 2, 3))
        self.t.action.append(action)
        self.t.method.append(row)
        self.t.cpu.append(self._cpu + overhead)
        self.t.wall.append(self._wall + overhead + self.rng.choice((0, 0, 0, 1)))
        self.t.idle.append(self._idle)
        self._cpu = self._wall = 0
        self._idle = False

    def work(self, cpu_us: float, wall_us: float | None = None) -> None:
        """Spend `cpu_us` of CPU (and `wall_us` ≥ it of wall time) in the current frame."""
        cpu = max(int(cpu_us), 0)
        self._cpu += cpu
        self._wall += max(int(wall_us if wall_us is not None else cpu_us), cpu)

    def block(self, wall_us: float, cpu_us: float = 2) -> None:
        """Wait: wall time runs ahead of thread-CPU time; the next event may absorb idle time."""
        self.work(cpu_us, wall_us)
        self._idle = True

    def wait(self, spec: str, wall_us: float, cpu_us: float = 3) -> None:
        """A blocking call: `spec` waits `wall_us` (its exit may absorb more idle time)."""
        self.enter(spec)
        self.block(wall_us, cpu_us)
        self.exit()

    def enter(self, spec: str) -> None:
        """Enter `spec` (`pkg.Class.method(sig)`)."""
        if "{" in spec:
            spec = spec.replace("{f}", self.feature).replace("{F}", self.feature.capitalize())
            spec = spec.replace("{k}", self.lambda_index)
        row = self.catalog.row(spec)
        self._event(ENTER, row)
        self.stack.append(row)

    def exit(self) -> None:
        """Return from the innermost frame."""
        self._event(EXIT, self.stack.pop())

    def unroll(self, frames: int) -> None:
        """An exception pops `frames` frames (action 2, innermost first)."""
        for _ in range(frames):
            self._event(UNROLL, self.stack.pop())

    @contextmanager
    def call(self, spec: str, self_us: float = 0, wall_us: float | None = None) -> Iterator[None]:
        """`with b.call(m):` enters, runs the body, spends `self_us` and exits."""
        self.enter(spec)
        yield
        self.work(self_us, wall_us)
        self.exit()

    @contextmanager
    def frames(self, specs: list[str], self_us: float = 1) -> Iterator[None]:
        """Enter `specs` outermost first, run the body, exit them all (a little self time each)."""
        for s in specs:
            self.enter(s)
            self.work(self.rng.uniform(0, self_us))
        yield
        for _ in specs:
            self.work(self.rng.uniform(0, self_us))
            self.exit()

    def leaf(self, spec: str, self_us: float = 1, wall_us: float | None = None) -> None:
        """A call with no callees."""
        self.enter(spec)
        self.work(self_us, wall_us)
        self.exit()

    def chain(self, specs: list[str], leaf_us: float = 2) -> None:
        """Nested calls `specs[0] -> specs[1] -> …`, each a little self time."""
        for s in specs:
            self.enter(s)
            self.work(self.rng.uniform(0, 3))
        self.work(leaf_us)
        for _ in specs:
            self.exit()
            self.work(self.rng.uniform(0, 2))

    def u(self, lo: float, hi: float) -> float:
        """A log-uniform µs amount in [lo, hi]: many short, some long."""
        return float(lo * (hi / lo) ** self.rng.random())

    def done(self) -> Template:
        """The finished template (callers check that the stack is back where it started)."""
        return self.t
