"""`Trace`: a header, the thread/method/event tables and the diagnostics of one file.

This is what every reader returns and every analysis takes. `Trace.validate()` checks the
invariants written on the tables; tests call it on every trace they build or load.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from traceview.model.dumps import ProcessDump
from traceview.model.errors import Diagnostic
from traceview.model.tables import EventTable, MethodTable, ThreadTable

Variant = Literal[
    "regular",  # key section + SLOW data (versions 1-3)
    "split",  # name.key + name.data pair
    "data-only",  # a bare SLOW v1-3 data section with no key at all
    "streaming",  # SLOW 0xF1-0xF3 with a trailing summary
    "streaming-nosummary",  # SLOW 0xF1-0xF3 without one (Android 5-7, or cut off)
    "v2",  # SLOW 4/5 (ART V2, file mode)
    "v2-streaming",  # SLOW 0xF4/0xF5
    "low-overhead",  # Android 16 low-overhead dump, either mode (no header)
    "simpleperf",  # simpleperf report-sample protobuf records (Studio's "Callstack sample")
]

Clock = Literal["thread-cpu", "wall", "dual", "global"]

# What the clock columns hold: times, or (a dump that records no times) each event's position
# in its thread's sequence: 0, 1, 2, ... ("order of events").
Axis = Literal["time", "order"]


@dataclass(frozen=True)
class Header:
    """What the file says about itself.

    `version` is the data header's version field as written (1, 2, 3, 0xF3, 4, 0xF5, ...);
    `key_version` the `*version` line of the key/summary (None if absent). `clock` is the
    `clock=` option (a missing option is read as the version implies and noted in
    diagnostics). `start_time_us` is the header's u8 start time converted to µs (its meaning
    varies by writer, format.md §1.6). `elapsed_ns` comes from `elapsed-time-usec/-nsec`.
    `options` keeps every key=value line of the key or summary in file order, unknown keys
    included. `record_size` is the V1 record size in bytes (None for V2). `sampled` is the
    reader's guess that the trace was recorded by sampling (format.md §1.9), and
    `sampling_interval_us` its estimate of the interval (None when instrumented or unknown).
    `entry_format` names the V2 entry-block generation (alpha/beta/gamma) or None.
    `event_types` are the events a simpleperf recording sampled (`cpu-clock`,
    `sched:sched_switch`, ...; empty for ART traces).

    `axis` is "time" for every trace with times; "order" when the file records none (an
    Android 16 all-methods dump): the wall column then holds, per event, the number of calls
    its thread entered before it (entries 0, 1, 2, ...; an exit shares the next entry's
    number), so a call spans the calls of its subtree (itself included) and its self is 1:
    calls, counts, nesting, trees and flame graphs (by count) are exact; no duration exists.
    `end_ns` is the moment of the dump on the wall axis and `monotonic_offset_ns` what to add
    to a wall value to read it on CLOCK_MONOTONIC (both from an Android 16 dump's summary
    packet, else None). `processes` lists the dumps found in an ANR report or a
    bugreport (empty for any other input) and `process` the index of the one read.
    """

    variant: Variant
    version: int
    clock: Clock
    key_version: int | None = None
    vm: str | None = None
    pid: int | None = None
    start_time_us: int | None = None
    elapsed_ns: int | None = None
    overflow: bool = False
    options: dict[str, str] = field(default_factory=dict)
    record_size: int | None = None
    sampled: bool = False
    sampling_interval_us: float | None = None
    entry_format: str | None = None
    event_types: tuple[str, ...] = ()
    axis: Axis = "time"
    end_ns: int | None = None
    monotonic_offset_ns: int | None = None
    processes: tuple[ProcessDump, ...] = ()
    process: int | None = None


@dataclass(eq=False)
class Trace:
    """One loaded method trace: header, tables and the list of repairs made while reading."""

    header: Header
    threads: ThreadTable
    methods: MethodTable
    events: EventTable
    diagnostics: list[Diagnostic] = field(default_factory=list)
    source: str | None = None

    def validate(self) -> None:
        """Check every invariant on the tables; raise AssertionError naming the broken one."""
        ev, th, me = self.events, self.threads, self.methods
        n = len(ev)
        _check(len(th.name) == len(th.id), "thread columns differ in length")
        # a reused id (a new row per new name) is allowed; the same (id, name) twice is not
        _check(
            len(set(zip(th.id.tolist(), th.name, strict=True))) == len(th),
            "thread rows repeat an (id, name) pair",
        )
        cols = (me.class_name, me.name, me.signature, me.source_file, me.line, me.declared)
        _check(all(len(c) == len(me.id) for c in cols), "method columns differ in length")
        _check(len(np.unique(me.id)) == len(me), "method ids are not unique")
        _check(me.line.dtype == np.int32, "method.line must be int32")
        _check(ev.method.dtype in (np.int16, np.int32), "event.method must be int16 or int32")
        _check(ev.method.dtype == np.int32 or len(me) <= 0x8000, "event.method too narrow")
        _check(ev.action.dtype == np.uint8, "event.action must be uint8")
        _check(ev.thread.dtype.kind == "u", "event.thread must be unsigned")
        _check(len(ev.thread) == n and len(ev.action) == n, "event columns differ in length")
        _check(bool(ev.clocks), "a trace needs at least one clock")
        if n:
            _check(int(ev.thread.max()) < len(th), "event.thread out of range")
            _check(int(ev.method.min()) >= 0, "event.method negative")
            _check(int(ev.method.max()) < len(me), "event.method out of range")
            _check(int(ev.action.max()) <= 2, "event.action out of range")
        for clock in ev.clocks:
            col = ev.time(clock)
            _check(col.dtype == np.int64 and len(col) == n, f"{clock} column shape/dtype")
            if n:
                order = np.argsort(ev.thread, kind="stable")
                t, c = ev.thread[order], col[order]
                same = t[1:] == t[:-1]
                _check(
                    bool(np.all(c[1:][same] >= c[:-1][same])),
                    f"{clock} time decreases within a thread",
                )
        expected_clock = {
            "dual": {"cpu", "wall"},
            "thread-cpu": {"cpu"},
            "wall": {"wall"},
            "global": {"wall"},  # early Dalvik's common clock across threads
        }
        if self.header.axis == "order":  # positions, not times: one column, no CPU clock
            _check(ev.cpu is None, "an order-of-events axis has no cpu column")
        if self.header.clock in expected_clock:
            _check(
                set(ev.clocks) == expected_clock[self.header.clock],
                f"clock={self.header.clock} but columns {ev.clocks}",
            )

    @property
    def clocks(self) -> tuple[str, ...]:
        """The clocks present, of ("cpu", "wall")."""
        return self.events.clocks

    @property
    def has_diagnostics(self) -> bool:
        """True when the reader repaired or flagged anything."""
        return bool(self.diagnostics)


def _check(ok: bool, what: str) -> None:
    if not ok:
        raise AssertionError(f"trace invariant broken: {what}")
