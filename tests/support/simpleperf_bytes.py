"""A small test-only writer of simpleperf report-sample files (`SIMPLEPERF`, u16 version,
u32-length-prefixed `Record` messages, a zero length), field numbers as in simpleperf's
cmd_report_sample.proto; and `big`, a large realistic file made fast from stack templates
(tests of scale and benchmarks/bench_simpleperf.py)."""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

MAGIC = b"SIMPLEPERF"


def varint(value: int) -> bytes:
    """A protobuf varint (negative values as 64-bit two's complement, as int32 fields are)."""
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def num(field: int, value: int) -> bytes:
    """A varint field."""
    return varint(field << 3) + varint(value)


def blob(field: int, payload: bytes) -> bytes:
    """A length-delimited field."""
    return varint(field << 3 | 2) + varint(len(payload)) + payload


def text(field: int, value: str) -> bytes:
    """A string field (surrogate escapes written back as the bytes they stand for)."""
    return blob(field, value.encode("utf-8", "surrogateescape"))


@dataclass(frozen=True)
class Frame:
    """One call-chain entry."""

    file: int
    symbol: int
    vaddr: int = 0x1000
    execution: int | None = None


def entry(f: Frame) -> bytes:
    """A CallChainEntry message."""
    body = num(1, f.vaddr) + num(2, f.file) + num(3, f.symbol)
    return body + (num(4, f.execution) if f.execution is not None else b"")


def sample(
    time: int, tid: int, chain: Sequence[Frame], count: int | None = 250_000, event: int = 0
) -> bytes:
    """A Record holding a Sample (`chain` innermost first, as simpleperf writes it)."""
    body = num(1, time) + num(2, tid) + b"".join(blob(3, entry(f)) for f in chain)
    if count is not None:
        body += num(4, count)
    return blob(1, body + num(5, event))


def file(fid: int, path: str, symbols: Sequence[str]) -> bytes:
    """A Record holding a File with its symbol table (mangled names left out)."""
    body = num(1, fid) + text(2, path) + b"".join(text(3, s) for s in symbols)
    return blob(3, body)


def thread(tid: int, pid: int, name: str) -> bytes:
    """A Record holding a Thread."""
    return blob(4, num(1, tid) + num(2, pid) + text(3, name))


def meta(events: Sequence[str], app: str | None = None, offcpu: bool | None = None) -> bytes:
    """A Record holding the MetaInfo."""
    body = b"".join(text(1, e) for e in events)
    if app is not None:
        body += text(2, app)
    if offcpu is not None:
        body += num(6, int(offcpu))
    return blob(5, body)


def lost(samples: int, lost_count: int) -> bytes:
    """A Record holding the LostSituation."""
    return blob(2, num(1, samples) + num(2, lost_count))


def switch(time: int, tid: int, on: bool) -> bytes:
    """A Record holding a ContextSwitch."""
    return blob(6, num(1, int(on)) + num(2, time) + num(3, tid))


def recording(
    records: Iterable[bytes], *, header: bool = True, end: bool = True, version: int = 1
) -> bytes:
    """A whole file: the header, each record behind its u32 length, the zero length."""
    parts = [MAGIC + struct.pack("<H", version)] if header else []
    for r in records:
        parts.append(struct.pack("<I", len(r)) + r)
    if end:
        parts.append(b"\0\0\0\0")
    return b"".join(parts)


def big(
    samples: int, threads: int = 16, stacks: int = 4000, depth: int = 40, seed: int = 1
) -> bytes:
    """A recording of `samples` samples: `threads` threads walking `stacks` distinct call
    chains of ~`depth` frames over 40 files (a quarter dex code) and the kernel, about as
    dense as the corpus recordings (~15 bytes per frame; the frames of the kernel and of two
    files are unsymbolised, as JIT code and stripped libraries are), cpu-clock and
    sched_switch events; the call-chain bytes are encoded once per template."""
    rng = np.random.default_rng(seed)
    files = [
        (f, f"/system/lib64/lib{f}.so" if f % 4 else f"/system/framework/f{f}.jar")
        for f in range(40)
    ]
    names = {
        f: [
            f"com.example.p{f}.C{k}.m{k % 9}" if f % 4 == 0 else f"ns{f}::fn{k}(int)"
            for k in range(400)
        ]
        for f, _ in files
    }
    templates: list[bytes] = []
    chains: list[list[Frame]] = []
    for _ in range(stacks):  # each stack shares its outer frames with an earlier one
        n = int(rng.integers(depth // 2, depth * 3 // 2))
        root = chains[int(rng.integers(len(chains)))] if chains else []
        keep = root[len(root) - int(rng.integers(0, min(len(root), n) + 1)) :]
        fs, ks = rng.integers(0, 40, n - len(keep)), rng.integers(0, 400, n - len(keep))
        ks[fs >= 38] = -1  # two files without symbols (JIT code, a stripped library)
        vs = rng.integers(0x100000, 0x40000000, len(ks))
        new = [Frame(int(f), int(k), int(v)) for f, k, v in zip(fs, ks, vs, strict=True)]
        if rng.random() < 0.5:  # a few kernel frames on top, unsymbolised (as in the corpus)
            top = rng.integers(0, 1 << 29, rng.integers(1, 8))
            new = [Frame(40, -1, 0xFFFF_FFFF_8000_0000 + int(v)) for v in top] + new
        chains.append(new + keep)
        templates.append(b"".join(blob(3, entry(c)) for c in new + keep))
    out = [meta(["cpu-clock", "sched:sched_switch"], "com.example", True)]
    out += [file(f, p, names[f]) for f, p in files] + [file(40, "[kernel.kallsyms]", [])]
    out += [thread(1000 + t, 1000, f"worker-{t}") for t in range(threads)]
    tid = rng.integers(0, threads, samples) + 1000
    pick = rng.integers(0, stacks, samples)
    stay = rng.random(samples) < 0.6  # a thread often stays in the same stack
    current = dict.fromkeys(range(1000, 1000 + threads), 0)
    for k in range(samples):
        t = int(tid[k])
        if stay[k]:
            pick[k] = current[t]
        current[t] = int(pick[k])
    times = 10**12 + np.cumsum(rng.integers(1000, 30_000, samples))
    sched = rng.random(samples) < 0.2
    for k in range(samples):
        head = num(1, int(times[k])) + num(2, int(tid[k]))
        tail = num(4, 1) + num(5, 1) if sched[k] else num(4, 250_000) + num(5, 0)
        out.append(blob(1, head + templates[pick[k]] + tail))
    out.append(lost(samples, 0))
    return recording(out)
