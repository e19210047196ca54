"""The few records that are not samples: files with their symbol tables, threads, the meta
info (event types, app, Android version) and the lost-sample counts, decoded one by one."""

from __future__ import annotations

from dataclasses import dataclass, field

from traceview.model import Diagnostic
from traceview.readers.simpleperf import wire
from traceview.readers.simpleperf.records import FILE, LOST, META, SWITCH, THREAD, Frames


@dataclass
class Thread:
    """A thread record: tid, pid and name."""

    tid: int
    pid: int
    name: str | None


@dataclass
class Facts:
    """What the non-sample records say."""

    files: dict[int, tuple[str, list[str]]] = field(default_factory=dict)
    threads: list[Thread] = field(default_factory=list)
    event_types: list[str] = field(default_factory=list)
    meta: dict[str, str] = field(default_factory=dict)
    has_meta: bool = False
    sample_count: int | None = None
    lost_count: int = 0
    switches: int = 0
    diagnostics: list[Diagnostic] = field(default_factory=list)


_META_KEYS = {2: "app", 3: "app-type", 4: "android-sdk", 5: "android-build-type"}


def read(buf: bytes | memoryview, frames: Frames) -> Facts:
    """Decode every file, thread, meta-info and lost record of `frames`."""
    facts = Facts(switches=len(frames.of(SWITCH)))
    bad: list[int] = []
    repeated_files = 0
    for kind in (FILE, THREAD, META, LOST):
        for r in frames.of(kind).tolist():
            at, end = int(frames.start[r]), int(frames.stop[r])
            try:
                got = wire.fields(buf, at, end)
            except wire.WireError:
                bad.append(at)
                continue
            if kind == FILE:
                repeated_files += not _file(facts, got)
            elif kind == THREAD:
                _thread(facts, got)
            elif kind == META:
                _meta(facts, got)
            else:
                _lost(facts, got)
    if bad:
        what = f"{len(bad)} file, thread or meta-info records that do not decode were skipped"
        facts.diagnostics.append(Diagnostic("bad-record", what, offset=bad[0], count=len(bad)))
    if repeated_files:
        what = f"{repeated_files} file records repeat an id already given: the first was kept"
        facts.diagnostics.append(Diagnostic("duplicate-file", what, count=repeated_files))
    return facts


def _ints(got: list[tuple[int, int, int | bytes]]) -> dict[int, int]:
    return {n: v for n, w, v in got if w == wire.VARINT and isinstance(v, int)}


def _file(facts: Facts, got: list[tuple[int, int, int | bytes]]) -> bool:
    ids = _ints(got)
    fid = wire.int32(ids.get(1, 0))  # read as the samples read file_id
    path = ""
    symbols = []
    for number, _, value in got:
        if number == 2 and isinstance(value, bytes):
            path = wire.text(value)
        elif number == 3 and isinstance(value, bytes):
            symbols.append(wire.text(value))
    if fid in facts.files:
        return False
    facts.files[fid] = (path, symbols)
    return True


def _thread(facts: Facts, got: list[tuple[int, int, int | bytes]]) -> None:
    ids = _ints(got)
    names = [wire.text(v) for n, _, v in got if n == 3 and isinstance(v, bytes)]
    tid = wire.int32(ids.get(1, 0))
    facts.threads.append(Thread(tid, wire.int32(ids.get(2, 0)), names[-1] if names else None))


def _meta(facts: Facts, got: list[tuple[int, int, int | bytes]]) -> None:
    facts.has_meta = True
    for number, wt, value in got:
        if number == 1 and isinstance(value, bytes):
            facts.event_types.append(wire.text(value))
        elif number in _META_KEYS and isinstance(value, bytes):
            facts.meta[_META_KEYS[number]] = wire.text(value)
        elif number == 6 and wt == wire.VARINT:
            facts.meta["trace-offcpu"] = "true" if value else "false"


def _lost(facts: Facts, got: list[tuple[int, int, int | bytes]]) -> None:
    ids = _ints(got)
    facts.sample_count = (facts.sample_count or 0) + ids.get(1, 0)
    facts.lost_count += ids.get(2, 0)
