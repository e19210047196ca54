"""Writer for ART's V2 method-trace format (file mode versions 4/5, streaming 0xF4/0xF5).

    write_v2(trace, out, *, streaming, generation="beta", clock=None, unit="ns",
             block_records=65536) -> None

* `generation`: "beta" (ART 15/16: 12-byte block headers, SLEB Δ(ArtMethod*|action), ULEB
  Δwall, ULEB Δcpu, all from 0 per block), "alpha" (2024: u8 first record in the block
  header, u2 count/size, Δmethod against that first record, u32 µs times) or "gamma"
  (Perfetto's layout: TSC start/frequency in the header, SLEB Δ(ts<<2|action), [SLEB Δcpu],
  SLEB Δmethod on entries only; written with a 1 GHz tick so ticks are ns).
* `clock`: "dual", "wall" or "thread-cpu"; default: the trace's clocks.
* `unit`: "ns" (ART since 2025-03, `elapsed-time-nsec`) or "us" (before, `elapsed-time-usec`)
  for beta; alpha is always µs, gamma always ns.
* File order follows ART: header, method infos, thread infos, blocks, summary (file mode);
  streaming puts each thread info right before that thread's first block. Blocks hold at most
  `block_records` records of one thread (alpha: 2000, its size field is u2) and are emitted
  like ART's per-thread buffers: a full chunk when its last record comes, the rest at the end.

Writing what `readers.v2.read` returns gives the same bytes again (round trip). Method ids with
the two low bits set cannot be encoded next to an action; such tables are renumbered 8, 16, ...
"""

from __future__ import annotations

import struct
from typing import BinaryIO

import numpy as np
import numpy.typing as npt

from traceview.model import Trace
from traceview.writer._leb128 import encode
from traceview.writer.keytext import encode as encode_text

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]

MAGIC = b"SLOW"
GENERATIONS = ("alpha", "beta", "gamma")
ALPHA_MAX_RECORDS = 2000  # 2000 x 30 bytes at most fits alpha's u2 payload size
TICKS_PER_SECOND = 10**9


def write_v2(
    trace: Trace,
    out: BinaryIO,
    *,
    streaming: bool,
    generation: str = "beta",
    clock: str | None = None,
    unit: str = "ns",
    block_records: int = 65536,
) -> None:
    """Write `trace` as a V2 file (or streaming file) of the given entry-block generation."""
    if generation not in GENERATIONS:
        raise ValueError(f"generation must be one of {GENERATIONS}, not {generation!r}")
    if unit not in ("ns", "us"):
        raise ValueError(f"unit must be 'ns' or 'us', not {unit!r}")
    unit = "us" if generation == "alpha" else "ns" if generation == "gamma" else unit
    ev = trace.events
    clock = clock or (
        "dual" if len(ev.clocks) == 2 else "wall" if ev.wall is not None else "thread-cpu"
    )
    cols = {"dual": ("wall", "cpu"), "wall": ("wall",), "thread-cpu": ("cpu",)}.get(clock)
    if cols is None:
        raise ValueError(f"clock must be dual, wall or thread-cpu for V2, not {clock!r}")
    missing = [c for c in cols if c not in ev.clocks]
    if missing:
        raise ValueError(f"clock={clock} needs the {' and '.join(missing)} clock")
    scale = 1000 if unit == "us" else 1
    times = [np.asarray(ev.time(c), dtype=np.int64) // scale for c in cols]
    ids = _method_ids(trace)
    values = ids[ev.method.astype(np.int64)] | ev.action.astype(np.uint64)
    limit = min(block_records, ALPHA_MAX_RECORDS) if generation == "alpha" else block_records
    chunks = _chunks(np.asarray(ev.thread, dtype=np.int64), len(trace.threads), max(limit, 1))
    version = 5 if clock == "dual" else 4
    start_us = trace.header.start_time_us or 0
    head = bytearray(32)
    head[:4] = MAGIC
    struct.pack_into("<HQ", head, 4, version | (0xF0 if streaming else 0), start_us * 1000 // scale)
    if generation == "gamma":
        struct.pack_into("<QQ", head, 14, 0, TICKS_PER_SECOND)
    out.write(bytes(head))
    out.write(_method_infos(trace, ids))
    tids = [int(t) & 0xFFFFFFFF for t in trace.threads.id]
    infos = [_thread_info(tids[r], trace.threads.name[r]) for r in range(len(tids))]
    blocks = _encode_blocks(generation, chunks, values, times, tids)
    order = [row for row, _ in chunks]  # thread row of every block
    written = [False] * len(tids)
    if not streaming:
        for row in dict.fromkeys(order):  # threads by first block
            out.write(infos[row])
            written[row] = True
    for row, block in zip(order, blocks, strict=True):
        if not written[row]:
            out.write(infos[row])
            written[row] = True
        out.write(block)
    for row in range(len(tids)):
        if not written[row]:
            out.write(infos[row])
    out.write(_summary(trace, clock, unit, streaming, len(ev), times))


def _method_ids(trace: Trace) -> U64:
    ids = np.asarray(trace.methods.id, dtype=np.uint64)
    if len(ids) and bool(np.any(ids & np.uint64(3))):
        return (np.arange(1, len(ids) + 1, dtype=np.uint64) << np.uint64(3)).astype(np.uint64)
    return ids


def _method_infos(trace: Trace, ids: U64) -> bytes:
    me = trace.methods
    parts: list[bytes] = []
    for row in np.flatnonzero(me.declared).tolist():
        fields = [me.class_name[row], me.name[row], me.signature[row], me.source_file[row]]
        if int(me.line[row]) >= 0:
            fields.append(str(int(me.line[row])))
        text = encode_text("\t".join(fields) + "\n")[:0xFFFF]
        parts.append(struct.pack("<BQH", 1, int(ids[row]), len(text)) + text)
    return b"".join(parts)


def _thread_info(tid: int, name: str | None) -> bytes:
    if name is None:
        return b""
    raw = encode_text(name)[:0xFFFF]
    return struct.pack("<BIH", 0, tid, len(raw)) + raw


def _chunks(thread: I64, n_threads: int, size: int) -> list[tuple[int, I64]]:
    """(thread row, record indices) per block, in ART's flush order: full chunks when their
    last record arrives, then the partial rest of every thread by its first pending record."""
    full: list[tuple[int, int, I64]] = []
    rest: list[tuple[int, int, I64]] = []
    order = np.argsort(thread, kind="stable")
    bounds = np.searchsorted(thread[order], np.arange(n_threads + 1))
    for row in range(n_threads):
        idx = order[bounds[row] : bounds[row + 1]]
        whole = len(idx) // size * size
        for k in range(0, whole, size):
            part = idx[k : k + size]
            full.append((int(part[-1]), row, part))
        if whole < len(idx):
            part = idx[whole:]
            rest.append((int(part[0]), row, part))
    full.sort(key=lambda c: c[0])
    rest.sort(key=lambda c: c[0])
    return [(row, part) for _, row, part in full + rest]


def _encode_blocks(
    generation: str,
    chunks: list[tuple[int, I64]],
    values: U64,
    times: list[I64],
    tids: list[int],
) -> list[bytes]:
    """Every block (header + payload) in `chunks` order."""
    if not chunks:
        return []
    perm = np.concatenate([idx for _, idx in chunks])
    counts = np.array([len(idx) for _, idx in chunks], dtype=np.int64)
    first = np.zeros(len(counts), dtype=np.int64)
    np.cumsum(counts[:-1], out=first[1:])
    is_first = np.zeros(len(perm), dtype=bool)
    is_first[first] = True
    vals = values[perm]
    ts = [t[perm].view(np.uint64) for t in times]
    if generation == "alpha":
        return _alpha_blocks(chunks, counts, first, is_first, vals, ts, tids)
    if generation == "gamma":
        lebs, present = _gamma_lebs(is_first, vals, ts)
    else:
        lebs = np.stack([_delta(vals, is_first)] + [_delta(t, is_first) for t in ts], axis=1)
        present = np.ones(lebs.shape, dtype=bool)
    signed = np.zeros(lebs.shape, dtype=bool)
    signed[:, 0] = True
    if generation == "gamma":
        signed[:] = True
    data, lengths = encode(lebs[present], signed[present])
    per_record = np.zeros(lebs.shape, dtype=np.int64)
    per_record[present] = lengths
    sizes = np.add.reduceat(per_record.sum(axis=1), first)
    return _frame(chunks, counts, sizes, data, tids)


def _delta(col: U64, is_first: npt.NDArray[np.bool_]) -> U64:
    """Differences from the previous record, from 0 at every block start (u64 wrap)."""
    out = col.copy()
    out[1:] -= col[:-1]
    out[is_first] = col[is_first]
    return out


def _gamma_lebs(
    is_first: npt.NDArray[np.bool_], vals: U64, ts: list[U64]
) -> tuple[U64, npt.NDArray[np.bool_]]:
    """Gamma records: Δ(ts<<2|action), [Δcpu], Δmethod on entries (chained over entries)."""
    action = vals & np.uint64(3)
    method = vals & ~np.uint64(3)
    tsa = (ts[0] << np.uint64(2)) | action
    entry = action == 0
    cols = [_delta(tsa, is_first)]
    if len(ts) == 2:
        cols.append(_delta(ts[1], is_first))
    block = np.cumsum(is_first)
    e = np.flatnonzero(entry)
    em = method[e]
    dm = em.copy()
    dm[1:] -= em[:-1]
    new_block = np.ones(len(e), dtype=bool)
    new_block[1:] = block[e][1:] != block[e][:-1]
    dm[new_block] = em[new_block]
    mcol = np.zeros(len(vals), dtype=np.uint64)
    mcol[e] = dm
    cols.append(mcol)
    lebs = np.stack(cols, axis=1)
    present = np.ones(lebs.shape, dtype=bool)
    present[:, -1] = entry
    return lebs, present


def _alpha_blocks(
    chunks: list[tuple[int, I64]],
    counts: I64,
    first: I64,
    is_first: npt.NDArray[np.bool_],
    vals: U64,
    ts: list[U64],
    tids: list[int],
) -> list[bytes]:
    """Alpha: the first record in clear in the header, then Δ against it / Δ u32 times."""
    mask32 = np.uint64(0xFFFFFFFF)
    base = np.repeat(vals[first], counts)
    cols = [vals - base] + [_delta(t & mask32, is_first) & mask32 for t in ts]
    lebs = np.stack(cols, axis=1)[~is_first]
    signed = np.zeros(lebs.shape, dtype=bool)
    signed[:, 0] = True
    data, lengths = encode(lebs.reshape(-1), signed.reshape(-1))
    per_record = lengths.reshape(lebs.shape).sum(axis=1)
    rest = counts - 1
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    ends = np.cumsum(rest)
    rec_off = np.zeros(len(per_record) + 1, dtype=np.int64)
    np.cumsum(per_record, out=rec_off[1:])
    offsets[1:] = rec_off[ends]
    raw = data.tobytes()
    out: list[bytes] = []
    clock_slots = [1, 0] if len(ts) == 2 else [0]  # header holds cpu then wall
    for i, (row, _) in enumerate(chunks):
        j = int(first[i])
        head = struct.pack("<BIQ", 2, tids[row], int(vals[j]))
        for k in clock_slots:
            head += struct.pack("<I", int(ts[k][j] & mask32))
        payload = raw[offsets[i] : offsets[i + 1]]
        head += struct.pack("<HH", int(rest[i]), len(payload))
        out.append(head + payload)
    return out


def _frame(
    chunks: list[tuple[int, I64]],
    counts: I64,
    sizes: I64,
    data: npt.NDArray[np.uint8],
    tids: list[int],
) -> list[bytes]:
    """Beta/gamma block headers `u1 2 | u4 tid | u3 count | u4 size` around the payloads."""
    raw = data.tobytes()
    out: list[bytes] = []
    pos = 0
    for (row, _), count, size in zip(chunks, counts.tolist(), sizes.tolist(), strict=True):
        head = struct.pack("<BI", 2, tids[row]) + count.to_bytes(3, "little")
        out.append(head + struct.pack("<I", size) + raw[pos : pos + size])
        pos += size
    return out


def _summary(
    trace: Trace, clock: str, unit: str, streaming: bool, records: int, times: list[I64]
) -> bytes:
    """The summary packet: ART's keys in ART's order, then any other option kept from the trace."""
    opts = trace.header.options
    elapsed = trace.header.elapsed_ns
    if elapsed is None:
        top = [int(t.max()) for t in times if len(t)]
        elapsed = max(top) * (1000 if unit == "us" else 1) if top else 0
    lines = ["*version", "5" if clock == "dual" else "4"]
    keys: list[tuple[str, str]] = [
        ("data-file-overflow", "true" if trace.header.overflow else "false"),
        ("clock", clock),
        ("elapsed-time-usec", str(elapsed // 1000))
        if unit == "us"
        else ("elapsed-time-nsec", str(elapsed)),
    ]
    if not streaming:
        keys.append(("num-method-calls", str(records)))
    keys.append(("clock-call-overhead-nsec", opts.get("clock-call-overhead-nsec", "0")))
    keys.append(("vm", trace.header.vm or opts.get("vm") or "art"))
    if trace.header.pid is not None:
        keys.append(("pid", str(trace.header.pid)))
    skip = {k for k, _ in keys} | {"elapsed-time-usec", "elapsed-time-nsec", "num-method-calls"}
    keys.extend((k, v) for k, v in opts.items() if k not in skip)
    lines.extend(f"{k}={v}" for k, v in keys)
    lines.append("*end")
    text = encode_text("\n".join(lines) + "\n")[:0xFFFF]
    return struct.pack("<BH", 3, len(text)) + text
