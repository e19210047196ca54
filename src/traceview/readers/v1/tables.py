"""V1 records decoded, to tables: the last V1 step before the shared assembly (`assemble.py`).

Every V1 reader (regular, split, data-only, streaming) ends in `finish`: it adds what only V1
can tell (Dalvik's unwritten records, ids missing from the key, the 2025 wall-clock unit bug
seen in µs spans, the sampling guess) and hands the columns to `assemble`.
"""

from __future__ import annotations

from collections.abc import Mapping

from traceview.model import (
    Clock,
    Diagnostic,
    EventTable,
    MethodTable,
    Trace,
    Variant,
    thread_index_dtype,
)
from traceview.readers.assemble import About, MethodFields, assemble, method_table, thread_table
from traceview.readers.keytext import KeyText
from traceview.readers.summary import elapsed_ns
from traceview.readers.v1.records import RecordDecoder

WALL_BUG, WALL_BUG_SCALE = "wall-unit-bug", 1000  # wall values in ms: scaled to µs


def wall_scale(trace: Trace) -> int:
    """What the reader multiplied `trace`'s wall times by (1000 after the wall-unit bug,
    else 1): a sink that counted the chunks' times as they came scales its wall sums so."""
    return WALL_BUG_SCALE if any(d.code == WALL_BUG for d in trace.diagnostics) else 1


def finish(
    dec: RecordDecoder,
    key: KeyText | None,
    *,
    variant: Variant,
    version: int,
    clock: Clock,
    start_time_us: int | None,
    diags: list[Diagnostic],
    source: str | None,
    declared_threads: Mapping[int, str | None],
    row_names: Mapping[int, str | None] | None = None,
) -> Trace:
    """Build the Trace from a finished decoder and the key/summary text (`row_names`: names
    of rows that differ from their id's declared name, a reused or renamed thread id); the
    trace of a decoder that handed its records to a sink has none."""
    n = dec.row
    options = dict(key.options) if key else {}
    if key is not None and key.version is not None and key.version != (version & 0x0F):
        diags.append(
            Diagnostic(
                "version-mismatch",
                f"key says version {key.version}, data header {version}; "
                "the data header decides the record layout",
            )
        )
    if dec.stopped_at is not None:
        diags.append(
            Diagnostic(
                "unwritten-record",
                f"record {dec.stopped_at} holds Dalvik's 0xeeeeeeee fill pattern (never "
                "written); the trace ends there",
                count=dec.stopped_at,
            )
        )
    thread_names = [declared_threads.get(t) for t in dec.thread_ids]
    for row, name in (row_names or {}).items():
        thread_names[row] = name
    if dec.new_threads and variant != "data-only":
        diags.append(
            Diagnostic(
                "unknown-thread",
                f"{len(dec.new_threads)} thread id(s) used by records are not in the key "
                f"(shown as [id]): {_sample(dec.new_threads)}",
                count=len(dec.new_threads),
            )
        )
    if dec.new_methods and variant != "data-only":
        diags.append(
            Diagnostic(
                "unknown-method",
                f"{len(dec.new_methods)} method id(s) used by records are not in the key "
                f"(shown as (0x…)): {_sample([hex(m) for m in dec.new_methods])}",
                count=len(dec.new_methods),
            )
        )
    methods = _method_table(dec, key)
    diags.extend(decoding_diagnostics(dec))
    times = {c: col[:n] for c, col in dec.times.items()}
    elapsed = elapsed_ns(options)
    if "wall" in times and "cpu" in dec.carried:  # (a CPU clock decoded, kept or not)
        cpu_span, wall_span = dec.clocks["cpu"].span(), dec.clocks["wall"].span()
        # Thread CPU time cannot outrun wall time; wall values in ms (the bug) make the CPU
        # spans ~1000x (at most, ~100x for mostly idle threads) the wall spans.
        if (
            cpu_span >= 10_000
            and wall_span >= 10
            and 100 * wall_span <= cpu_span <= 2000 * wall_span
        ):
            times["wall"] *= WALL_BUG_SCALE  # (in a sink's read, the sink scales: wall_scale)
            if elapsed is not None:
                elapsed *= WALL_BUG_SCALE
            diags.append(
                Diagnostic(
                    WALL_BUG,
                    f"wall time advances {cpu_span / max(wall_span, 1):.0f}x slower than thread "
                    "CPU time: the 2025 ART unit bug (wall values are ms); wall scaled by 1000",
                )
            )
    sampled, interval = dec.sampling()
    thread_col = dec.thread[:n]
    tdtype = thread_index_dtype(len(dec.thread_ids))
    if thread_col.dtype != tdtype:
        thread_col = thread_col.astype(tdtype)
    about = About(
        variant=variant,
        version=version,
        clock=clock,
        key_version=key.version if key else None,
        options=options,
        start_time_us=start_time_us,
        elapsed_ns=elapsed,
        record_size=dec.layout.record_size,
        sampled=sampled,
        sampling_interval_us=interval,
        records_where="the data section" if variant in ("regular", "split") else None,
        records=dec.pos if dec.sink is not None else None,
    )
    events = EventTable(
        thread=thread_col,
        method=dec.method[:n],
        action=dec.action[:n],
        cpu=times.get("cpu"),
        wall=times.get("wall"),
    )
    threads = thread_table(dec.thread_ids, thread_names)
    return assemble(about, threads, methods, events, diags, source)


def _method_table(dec: RecordDecoder, key: KeyText | None) -> MethodTable:
    """Key methods in key order (with their names), then ids only the records use."""
    lines = key.methods if key else {}
    declared = dec.method_ids[: len(dec.method_ids) - len(dec.new_methods)]
    fields = MethodFields()
    for mid in declared:
        m = lines.get(mid)
        if m is None:
            fields.add(f"(0x{mid:x})", "", "", "", -1)
        else:
            fields.add(m.class_name, m.name, m.signature, m.source_file, m.line, m.rest)
    return method_table(declared, fields, dec.new_methods)


def _sample(items: list[int] | list[str], k: int = 5) -> str:
    shown = ", ".join(str(i) for i in items[:k])
    return shown + (", …" if len(items) > k else "")


def decoding_diagnostics(dec: RecordDecoder) -> list[Diagnostic]:
    """What the decoding repaired or noticed."""
    wraps = sum(c.wraps for c in dec.clocks.values())
    backwards = sum(c.backwards for c in dec.clocks.values())
    found = [
        (
            "clock-wrap",
            wraps,
            f"the 32-bit µs clock wrapped {wraps} time(s) within threads (traces longer "
            "than 71.6 min); unwrapped",
        ),
        (
            "time-backwards",
            backwards,
            f"{backwards} time value(s) are earlier than the previous record of their "
            "thread; clamped to the previous time",
        ),
        (
            "bad-action",
            dec.bad_actions,
            f"{dec.bad_actions} record(s) have action 3 (unused); read as exits, "
            "as dmtracedump does",
        ),
        (
            "truncated-thread-id",
            dec.truncated_tids,
            f"{dec.truncated_tids} thread id(s) of the key exceed 16 bits; records with "
            "the low 16 bits of such an id are attributed to it",
        ),
    ]
    return [Diagnostic(code, text, count=n) for code, n, text in found if n]
