"""Reader for ART's V2 method traces (`SLOW` versions 4/5 in file mode, 0xF4/0xF5 streaming).

Called through `v2.read` after sniffing: `read_bytes(data, source=...) -> Trace`. The flow:
32-byte header, a packet walk (`walk.py`, `packets.py`) whose entry-block layout (generation
alpha, beta or gamma, see format.md §1.7) is chosen by checking which layout chains exactly
through the bytes, vectorised block decoding (`blocks.py`, `leb128.py`), infos to rows
(`infos.py`), every time converted to int64 ns (`units.py`: µs before 2025-03, ns after, TSC
ticks for gamma), then the shared assembly (`assemble.py`). Salvageable damage becomes
diagnostics; only a file with nothing usable raises.
"""

from __future__ import annotations

import struct

import numpy as np
import numpy.typing as npt

from traceview.model import (
    Clock,
    Diagnostic,
    EventTable,
    Trace,
    TraceFormatError,
    thread_index_dtype,
)
from traceview.readers.assemble import About, assemble
from traceview.readers.summary import elapsed_ns
from traceview.readers.v2.blocks import Records, decode_blocks, rejoin_continued
from traceview.readers.v2.infos import build_methods, build_threads, parse_summary
from traceview.readers.v2.packets import HEADER_SIZE, Layout, Walk
from traceview.readers.v2.units import (
    clamp_backwards,
    fix_wall_unit_bug,
    sampling,
    to_ns,
    unit_of,
)
from traceview.readers.v2.walk import scan

MAGIC = b"SLOW"
VERSIONS = (4, 5, 0xF4, 0xF5)


def read_bytes(data: bytes | memoryview, *, source: str | None = None) -> Trace:
    """Read one V2 trace from its bytes (the whole file, gzip already removed)."""
    buf = bytes(data)
    diags: list[Diagnostic] = []
    base = 0
    pre_summary: bytes | None = None
    if buf.startswith(b"*version"):
        # The earliest V2 file mode (2024) wrote the summary text first, then header + blocks.
        end = buf.find(b"*end\n")
        if end < 0 or buf.find(MAGIC, end) != end + 5:
            raise TraceFormatError(
                "V2 summary text is not followed by a SLOW header",
                offset=0 if end < 0 else end + 5,
                expected="*end then SLOW",
                found=repr(buf[max(end, 0) + 5 : max(end, 0) + 9]),
            )
        pre_summary, base = buf[: end + 5], end + 5
        buf = buf[base:]
    version = _check_header(buf, base)
    arr = np.frombuffer(buf, dtype=np.uint8)
    clocks = 2 if version & 0x0F == 5 else 1
    found, layout = scan(buf, arr, clocks, base, diags)
    if not (found.blocks or found.methods or found.threads or found.summaries or pre_summary):
        if len(buf) > HEADER_SIZE:
            raise TraceFormatError(
                "no V2 packet after the header",
                offset=base + HEADER_SIZE,
                expected="a packet type 0-3",
                found=f"0x{buf[HEADER_SIZE]:02x}",
            )
        diags.append(Diagnostic("no-events", "the file holds a V2 header and nothing else"))
    summary = found.summaries[0][1] if found.summaries else pre_summary
    key_version, options = parse_summary(summary, diags) if summary is not None else (None, {})
    if summary is None:
        diags.append(
            Diagnostic(
                "no-summary",
                "no summary packet (tracing not stopped cleanly, or the file was cut); "
                "clock and units are taken from the header and the data",
            )
        )
    return _build(buf, arr, found, layout, version, key_version, options, diags, base, source)


def _check_header(buf: bytes, base: int) -> int:
    if len(buf) < HEADER_SIZE:
        raise TraceFormatError(
            "file too short for a V2 header",
            offset=base + len(buf),
            expected="32 header bytes",
            found=f"{len(buf)} bytes",
        )
    if buf[:4] != MAGIC:
        raise TraceFormatError(
            "not a V2 method trace", offset=base, expected="SLOW", found=repr(buf[:4])
        )
    (version,) = struct.unpack_from("<H", buf, 4)
    if version not in VERSIONS:
        raise TraceFormatError(
            "unsupported V2 trace version",
            offset=base + 4,
            expected="4, 5, 0xF4 or 0xF5",
            found=f"0x{version:x}",
        )
    return int(version)


def _choose_alpha_chain(arr: npt.NDArray[np.uint8], found: Walk, layout: Layout) -> Records:
    """Alpha Δmethods are against the block's first record (early) or chained: keep the
    reading whose ids more often match a method info."""
    shift = 2 if layout.id_width == 4 else 0
    declared = np.array([m[1] << shift for m in found.methods], dtype=np.uint64)
    best: Records | None = None
    best_hits = -1
    for chain in (False, True):
        rec = decode_blocks(arr, found.blocks, layout, chain)
        hits = int(np.isin(rec.method, declared).sum())
        if hits > best_hits:
            best, best_hits = rec, hits
    assert best is not None
    return best


def _build(
    buf: bytes,
    arr: npt.NDArray[np.uint8],
    found: Walk,
    layout: Layout,
    version: int,
    key_version: int | None,
    options: dict[str, str],
    diags: list[Diagnostic],
    base: int,
    source: str | None,
) -> Trace:
    if layout.generation == "alpha" and found.blocks:
        rec = _choose_alpha_chain(arr, found, layout)
    else:
        rec = decode_blocks(arr, found.blocks, layout, False)
    if layout.generation == "beta":
        declared = np.array([m[1] for m in found.methods], dtype=np.uint64)
        rejoined = rejoin_continued(rec, found.blocks, declared)
        if rejoined:
            diags.append(
                Diagnostic(
                    "continued-blocks",
                    f"{rejoined} entry block(s) continue the deltas of their thread's previous "
                    "block (one ART flush split in several blocks); read as continued",
                    count=rejoined,
                )
            )
    for offset, what in rec.damaged:
        code = "truncated-block" if "truncated" in what else "bad-block"
        diags.append(Diagnostic(code, what, offset=base + offset))
    bad_action = rec.action == 3
    if bad_action.any():
        n_bad = int(bad_action.sum())
        rec.action[bad_action] = 1
        diags.append(
            Diagnostic(
                "unknown-action",
                f"{n_bad} record(s) have action 3 (unused); read as exits",
                count=n_bad,
            )
        )
    used = [(b.offset, b.tid) for b in found.blocks]
    threads, block_rows = build_threads(found.threads, used, diags)
    shift = 2 if layout.id_width == 4 and layout.generation == "alpha" else 0
    methods, method_col = build_methods(found.methods, rec.method, shift, diags)
    thread_col = block_rows[rec.block].astype(thread_index_dtype(len(threads)))

    header_start = struct.unpack_from("<QQQ", buf, 6)
    unit = unit_of(layout, options, header_start, diags)
    # Gamma's second (cpu) LEB is not TSC ticks: only the first clock uses the frequency.
    times = [
        to_ns(t, unit if k == 0 else unit.replace("ticks", "ns"), header_start)
        for k, t in enumerate(rec.times)
    ]
    clock = _single_clock(options, diags) if layout.clocks == 1 else "dual"
    if (version & 0x0F == 5) != (layout.clocks == 2):
        diags.append(
            Diagnostic(
                "clock-mismatch",
                f"header version 0x{version:x} disagrees with the entry blocks, which hold "
                f"{layout.clocks} clock(s); the blocks win",
            )
        )
    wall: npt.NDArray[np.int64] | None
    cpu: npt.NDArray[np.int64] | None
    if layout.clocks == 2:
        wall, cpu = times
    elif clock == "thread-cpu":
        wall, cpu = None, times[0]
    else:
        wall, cpu = times[0], None
    elapsed = elapsed_ns(options)
    if wall is not None and cpu is not None and unit == "ns":
        wall, elapsed = fix_wall_unit_bug(rec.block, wall, cpu, elapsed, diags)
    if wall is not None:
        wall = clamp_backwards(rec.block, block_rows, wall, "wall", diags)
    if cpu is not None:
        cpu = clamp_backwards(rec.block, block_rows, cpu, "cpu", diags)
    last_clock = wall if wall is not None else cpu
    sampled, interval = sampling(rec.block, last_clock) if last_clock is not None else (False, None)
    start = header_start[0]
    about = About(
        variant="v2-streaming" if version & 0xF0 else "v2",
        version=version,
        clock=clock,
        key_version=key_version,
        options=options,
        start_time_us=start // 1000 if unit != "us" else start,
        elapsed_ns=elapsed,
        sampled=sampled,
        sampling_interval_us=interval,
        entry_format=layout.generation if found.blocks else None,
        records_where="the entry blocks",
    )
    events = EventTable(thread_col, method_col, rec.action.astype(np.uint8), cpu, wall)
    return assemble(about, threads, methods, events, diags, source)


def _single_clock(options: dict[str, str], diags: list[Diagnostic]) -> Clock:
    value = options.get("clock", "").strip()
    if value in ("wall", "thread-cpu", "global"):
        return value  # type: ignore[return-value]
    diags.append(
        Diagnostic(
            "clock-guessed",
            f"single-clock V2 trace with clock={value or '(missing)'}; read as wall clock",
        )
    )
    return "wall"
