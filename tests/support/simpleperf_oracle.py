"""An independent, plain-Python reading of simpleperf report-sample files: one record and one
field at a time, as Firefox Profiler's importer walks them (its `simpleperf.ts`: a function
per (name, file), the name being the symbol or `file+0xaddr`; weights from cpu-clock event
counts), with traceview's naming of methods written a second time. Tests compare the reader's
tables with it; it is slow and simple on purpose."""

from __future__ import annotations

import re
import struct
from collections import Counter, defaultdict
from dataclasses import dataclass, field

JAVA_FILES = (".jar", ".apk", ".dex", ".vdex", ".oat", ".odex")


def _varint(b: bytes, i: int) -> tuple[int, int]:
    out = shift = 0
    while True:
        c = b[i]
        i += 1
        out |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return out & (2**64 - 1), i


def _message(b: bytes) -> dict[int, list[int | bytes]]:
    out: dict[int, list[int | bytes]] = defaultdict(list)
    i = 0
    while i < len(b):
        key, i = _varint(b, i)
        if key & 7 == 0:
            v, i = _varint(b, i)
            out[key >> 3].append(v)
        elif key & 7 == 2:
            n, i = _varint(b, i)
            out[key >> 3].append(b[i : i + n])
            i += n
        else:
            raise ValueError(f"wire type {key & 7}")
    return out


def _signed32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - 2**32 if v >= 2**31 else v


@dataclass
class Sample:
    """One sample: thread, time, event name, count, frames (outermost first) as
    Firefox-style (name, path) functions and as traceview labels."""

    tid: int
    time: int
    event: str
    count: int
    funcs: list[tuple[str, str]]
    labels: list[str]
    frames: list[tuple[str, str | None, int, int]] = field(default_factory=list)


@dataclass
class Recording:
    """Everything the oracle read."""

    samples: list[Sample] = field(default_factory=list)
    threads: dict[int, str] = field(default_factory=dict)
    files: dict[int, tuple[str, list[str]]] = field(default_factory=dict)
    events: list[str] = field(default_factory=list)

    def symbols(self) -> int:
        """Symbols over all file records."""
        return sum(len(s) for _, s in self.files.values())


def _java(symbol: str) -> tuple[str, str, str] | None:
    s = symbol.removesuffix(" [DEDUPED]")
    args = ""
    if s.endswith(")") and "(" in s:
        s, args = s[: s.index("(")], s[s.index("(") :]
    s = s.split(" ")[-1]
    if not re.fullmatch(r"[\w$]+(\.[\w$<>\-]+)+", s):
        return None
    return s.rsplit(".", 1)[0], s.rsplit(".", 1)[1], args


def _javaish(path: str, execution: int) -> bool:
    low = path.lower()
    javaish = execution in (1, 2) or low.endswith(JAVA_FILES) or low.startswith("[jit")
    return javaish or "jit-cache" in low or "jit-code-cache" in low


def _label(path: str, symbol: str | None, vaddr: int, execution: int, whole: bool = False) -> str:
    base = path if whole else re.split(r"[\\/]", path)[-1] or path
    if symbol is None:
        return f"{base}+0x{vaddr:x}"
    java = _java(symbol) if _javaish(path, execution) else None
    if java:
        cls, method, args = java
        return f"{cls}.{method} {args}" if args else f"{cls}.{method}"
    return f"{symbol} ({base})"


def read(data: bytes) -> Recording:
    """Decode a whole file (with or without its 12-byte header)."""
    rec = Recording()
    i = 12 if data.startswith(b"SIMPLEPERF") else 0
    raw: list[dict[int, list[int | bytes]]] = []
    while i + 4 <= len(data):
        (n,) = struct.unpack_from("<I", data, i)
        i += 4
        if n == 0:
            break
        body = _message(data[i : i + n])
        i += n
        kind, payload = next(iter(body.items()))
        assert isinstance(payload[0], bytes)
        m = _message(payload[0])
        if kind == 3:
            fid = int(m.get(1, [0])[0])
            path = bytes(m.get(2, [b""])[0]).decode("utf-8", "surrogateescape")
            syms = [bytes(s).decode("utf-8", "surrogateescape") for s in m.get(3, [])]
            rec.files.setdefault(fid, (path, syms))
        elif kind == 4:
            name = bytes(m.get(3, [b""])[0]).decode("utf-8", "surrogateescape")
            rec.threads.setdefault(_signed32(int(m[1][0])), name)
        elif kind == 5:
            rec.events = [bytes(e).decode() for e in m.get(1, [])]
        elif kind == 1:
            raw.append(m)
    for m in raw:
        frames = []
        for e in m.get(3, []):
            assert isinstance(e, bytes)  # a frame is a message (length-delimited)
            f = _message(e)
            fid, sym = _signed32(int(f.get(2, [0])[0])), _signed32(int(f.get(3, [0])[0]))
            vaddr, ex = int(f.get(1, [0])[0]), int(f.get(4, [0])[0])
            path, syms = rec.files.get(fid, (f"[file {fid}]", []))
            symbol = syms[sym] if 0 <= sym < len(syms) else None
            frames.append((path, symbol, vaddr, ex))
        frames.reverse()
        ev = _signed32(int(m.get(5, [0])[0]))
        rec.samples.append(
            Sample(
                tid=_signed32(int(m.get(2, [0])[0])),
                time=int(m.get(1, [0])[0]),
                event=rec.events[ev] if 0 <= ev < len(rec.events) else "",
                count=int(m.get(4, [0])[0]),
                funcs=[(s if s is not None else _label(p, None, v, x), p) for p, s, v, x in frames],
                labels=[_label(p, s, v, x) for p, s, v, x in frames],
            )
        )
        rec.samples[-1].frames = frames
    _whole_paths(rec)
    return rec


def _whole_paths(rec: Recording) -> None:
    """Native labels shared by frames of different files name the whole paths instead."""
    owners: dict[str, set[tuple[str, str | None, int]]] = defaultdict(set)
    for s in rec.samples:
        for (p, sym, v, x), label in zip(s.frames, s.labels, strict=True):
            if sym is None or not (_javaish(p, x) and _java(sym)):
                owners[label].add((p, sym, v if sym is None else 0))
    shared = {label for label, who in owners.items() if len({w[0] for w in who}) > 1}
    for s in rec.samples:
        s.labels = [
            _label(p, sym, v, x, whole=True) if label in shared else label
            for (p, sym, v, x), label in zip(s.frames, s.labels, strict=True)
        ]


def cpu_weights(rec: Recording) -> tuple[Counter[str], Counter[str]]:
    """Per label: the cpu-clock event counts of samples it is the leaf of (self) and of
    samples it is on the stack of, once per sample (total)."""
    own: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for s in rec.samples:
        if s.event not in ("cpu-clock", "task-clock") or not s.labels:
            continue
        own[s.labels[-1]] += s.count
        for label in set(s.labels):
            total[label] += s.count
    return own, total


def firefox_counts(rec: Recording) -> Counter[tuple[str, str]]:
    """Per Firefox function (name, file): the samples it is the leaf of, all events, threads
    with a thread record only (the importer drops the others)."""
    out: Counter[tuple[str, str]] = Counter()
    for s in rec.samples:
        if s.tid in rec.threads and s.funcs:
            out[s.funcs[-1]] += 1
    return out


def events(rec: Recording) -> dict[int, list[tuple[int, str]]]:
    """Per tid, the (action, label) events of its samples in time order: exits of the frames
    that left the stack, innermost first, then enters of the new ones; all closed at the end."""
    out: dict[int, list[tuple[int, str]]] = defaultdict(list)
    now: dict[int, list[str]] = defaultdict(list)
    key = lambda k: (rec.samples[k].tid, rec.samples[k].time, k)  # noqa: E731
    for k in sorted(range(len(rec.samples)), key=key):
        s = rec.samples[k]
        old, new = now[s.tid], s.labels
        same = 0
        while same < min(len(old), len(new)) and old[same] == new[same]:
            same += 1
        out[s.tid] += [(1, m) for m in reversed(old[same:])] + [(0, m) for m in new[same:]]
        now[s.tid] = list(new)
    for tid, old in now.items():
        out[tid] += [(1, m) for m in reversed(old)]
    return dict(out)
