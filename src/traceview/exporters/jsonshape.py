"""JSON shapes shared by every JSON output (the viewer's API, the report, `--json` of the
commands): ns arrays in, µs numbers out; names from the trace through `model.text.visible`, so
undecodable bytes show as `\\xNN` and the JSON is always valid UTF-8. The shapes are
documented in docs/json.md and docs/web-api.md.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.calls import FORCED_EXIT, OPEN, RECURSIVE, SYNTH_ENTRY, UNROLL
from traceview.analysis.layout.timeline import Tile
from traceview.analysis.profile import Profile
from traceview.analysis.view import View
from traceview.model import Diagnostic, MethodTable, Trace, visible

# traceview's ColorController palette, in its order (format.md d.4 "Colours")
PALETTE_RGB = (
    (90, 90, 255),
    (0, 240, 0),
    (255, 0, 0),
    (0, 255, 255),
    (255, 80, 255),
    (200, 200, 0),
    (40, 0, 200),
    (150, 255, 150),
    (150, 0, 0),
    (30, 150, 150),
    (200, 200, 255),
    (0, 120, 0),
    (255, 150, 150),
    (140, 80, 140),
    (150, 100, 50),
    (70, 70, 70),
)
PALETTE = [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in PALETTE_RGB]

FLAG_NAMES: tuple[tuple[int, str], ...] = (
    (RECURSIVE, "recursive"),
    (SYNTH_ENTRY, "entry-synthesised"),
    (OPEN, "open-at-end"),
    (UNROLL, "unroll"),
    (FORCED_EXIT, "forced-exit"),
)

Json = dict[str, Any]


def encode(obj: object) -> bytes:
    """Compact UTF-8 JSON (non-ASCII kept as is; NaN is never produced by the payloads). A
    stray surrogate that escaped `visible` is written as a `\\udcNN` escape, never raised."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.encode("utf-8", "backslashreplace")


def dumps(obj: object) -> str:
    """Indented JSON text for files and the terminal (the `--json` outputs)."""
    return json.dumps(obj, ensure_ascii=False, indent=1, allow_nan=False)


def diagnostics_json(diagnostics: Iterable[Diagnostic]) -> list[Json]:
    """`[{code, message, offset, count}]`, one per repair."""
    out = []
    for d in diagnostics:
        item = d.to_json()
        item["message"] = visible(d.message)
        out.append(item)
    return out


def us(ns: npt.ArrayLike, origin: int = 0) -> list[float]:
    """ns values minus `origin` as µs rounded to the ns, as a JSON list (integers are
    subtracted before the float division, so epoch-sized ns keep their precision)."""
    arr = np.asarray(ns)
    if arr.dtype.kind in "iu":
        rel = (arr.astype(np.int64) - np.int64(origin)) / 1000.0
    else:
        rel = (arr.astype(np.float64) - origin) / 1000.0
    out: list[float] = np.round(rel, 3).tolist()
    return out


def us1(ns: int | float | None, origin: int = 0) -> float | None:
    """One ns value as µs (None stays None)."""
    if ns is None:
        return None
    rel = ns - origin if isinstance(ns, int) else float(ns) - origin
    return round(rel / 1000.0, 3)


def ints(values: npt.ArrayLike) -> list[int]:
    """A numpy integer column as a JSON list."""
    out: list[int] = np.asarray(values).astype(np.int64).tolist()
    return out


def header_json(trace: Trace) -> Json:
    """The `header` object of /api/trace and of `info --json`."""
    h = trace.header
    return {
        "variant": h.variant,
        "version": h.version,
        "clock": h.clock,
        "vm": h.vm,
        "pid": h.pid,
        "start_time_us": h.start_time_us,
        "elapsed_us": us1(h.elapsed_ns),
        "overflow": h.overflow,
        "sampled": h.sampled,
        "sampling_interval_us": h.sampling_interval_us,
        "entry_format": h.entry_format,
        "record_size": h.record_size,
        "options": {visible(k): visible(v) for k, v in h.options.items()},
        "axis": h.axis,
        "end_us": us1(h.end_ns),
        "monotonic_offset_ns": h.monotonic_offset_ns,
        "processes": [
            {"name": visible(d.name) if d.name else None, "pid": d.pid, "where": visible(d.where())}
            for d in h.processes
        ],
        "process": h.process,
    }


def methods_json(me: MethodTable, color: npt.NDArray[np.int64]) -> Json:
    """/api/methods: one entry per method row, `color` an index into the palette or -1."""
    n = len(me)
    return {
        "label": [visible(me.label(i)) for i in range(n)],
        "class": [visible(x) for x in me.class_name],
        "name": [visible(x) for x in me.name],
        "signature": [visible(x) for x in me.signature],
        "file": [visible(x) for x in me.source_file],
        "line": ints(me.line),
        "color": ints(color),
        "obfuscated": [visible(x) for x in me.obfuscated] if me.obfuscated else [""] * n,
    }


def run_us(ns: npt.NDArray[np.float64], origin: int, tile_ns: int) -> list[float] | list[int]:
    """Merged-run edges as µs (like `us`), rounded to about 1/100 of a bucket: they are bucket
    aligned, so finer digits only add bytes (most of a busy tile's answer); whole µs become
    integers."""
    bucket_us = tile_ns / 1024 / 1000
    decimals = min(3, max(0, math.ceil(-math.log10(bucket_us / 100)))) if bucket_us > 0 else 3
    rel = np.round((ns.astype(np.float64) - origin) / 1000.0, decimals)
    return rel.astype(np.int64).tolist() if decimals == 0 else rel.tolist()  # type: ignore[no-any-return]


def tile_json(tile: Tile, origin: int) -> Json:
    """/api/timeline: one LOD tile, times in µs relative to the time origin."""
    return {
        "thread": tile.thread,
        "level": tile.level,
        "tile": tile.tile,
        "t0": us1(tile.t0, origin),
        "t1": us1(tile.t1, origin),
        "rects": {
            "call": ints(tile.rect_call),
            "method": ints(tile.rect_method),
            "depth": ints(tile.rect_depth),
            "start": us(tile.rect_start, origin),
            "end": us(tile.rect_end, origin),
        },
        "merged": {
            "depth": ints(tile.merged_depth),
            "start": run_us(tile.merged_start, origin - tile.t0, tile.t1 - tile.t0),
            "end": run_us(tile.merged_end, origin - tile.t0, tile.t1 - tile.t0),
            "count": ints(tile.merged_count),
        },
        "truncated": tile.truncated,
    }


def flag_names(flags: int) -> list[str]:
    """The names of the bits set in a call's flags."""
    return [name for bit, name in FLAG_NAMES if flags & bit]


def selection_json(view: View) -> Json:
    """What a view selected: thread rows (null = all), clock, time range (µs from the start
    on its clock; with the time base "monotonic" also its ends on CLOCK_MONOTONIC in ns),
    my-code prefixes, whether names are renamed, the time base."""
    q, s = view.query, view.session
    tr = q.time_range
    rng: Json | None = None
    if tr is not None:
        rng = {"from_us": us1(tr.lo, s.origin), "to_us": us1(tr.hi, s.origin), "clock": tr.clock}
        shift = s.monotonic_shift
        if q.time == "monotonic" and shift is not None:
            rng["from_monotonic_ns"], rng["to_monotonic_ns"] = tr.lo + shift, tr.hi + shift
    return {
        "threads": list(q.threads) if q.threads is not None else None,
        "clock": q.clock,
        "time_range": rng,
        "my_code": list(q.my_code),
        "renamed": q.rename is not None,
        "time": q.time,
    }


def threads_json(view: View, prof: Profile) -> list[Json]:
    """Per selected thread: row, id, name, totals on each clock (µs, null for a missing
    clock or a trace without times; clipped to the range), calls."""
    th = view.trace.threads
    out: list[Json] = []
    for i, t in enumerate(prof.threads):
        name = th.name[t]
        item: Json = {"row": t, "id": int(th.id[t]), "name": visible(name) if name else None}
        for clock in ("cpu", "wall"):
            total = prof.thread_total.get(clock)
            absent = view.session.timeless
            item[f"{clock}_us"] = None if absent or total is None else int(total[i]) / 1000
        item["calls"] = int(prof.thread_calls[i])
        out.append(item)
    return out
