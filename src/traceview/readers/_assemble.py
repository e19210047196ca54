"""The final assembly of a V1 `Trace` from a finished `RecordDecoder` and the key text.

Every V1 reader ends here: `assemble` builds the thread/method/event tables and the header,
and adds the whole-trace diagnostics (unknown ids, overflow, the 2025 wall-clock unit bug)
and the sampling guess (format.md §1.9).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from traceview.model import (
    Clock,
    Diagnostic,
    EventTable,
    Header,
    MethodTable,
    ThreadTable,
    Trace,
    Variant,
    thread_index_dtype,
)
from traceview.readers._header import KeyText
from traceview.readers._records import RecordDecoder
from traceview.readers._summary import (
    check_record_count,
    elapsed_ns,
    guess_sampling,
    overflow_flag,
    to_int,
)


def assemble(
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
) -> Trace:
    """Build the Trace from a finished decoder and the key/summary text."""
    n = dec.pos
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
    diags.extend(dec.diagnostics())
    times = {c: col[:n] for c, col in dec.times.items()}
    elapsed = elapsed_ns(options)
    if "cpu" in times and "wall" in times:
        cpu_span, wall_span = dec.clocks["cpu"].span(), dec.clocks["wall"].span()
        # Thread CPU time cannot outrun wall time; wall values in ms (the bug) make the CPU
        # spans ~1000x (at most, ~100x for mostly idle threads) the wall spans.
        if (
            cpu_span >= 10_000
            and wall_span >= 10
            and 100 * wall_span <= cpu_span <= 2000 * wall_span
        ):
            times["wall"] *= 1000
            if elapsed is not None:
                elapsed *= 1000
            diags.append(
                Diagnostic(
                    "wall-unit-bug",
                    f"wall time advances {cpu_span / max(wall_span, 1):.0f}x slower than thread "
                    "CPU time: the 2025 ART unit bug (wall values are ms); wall scaled by 1000",
                )
            )
    deltas = dec.clocks[dec.layout.clocks[-1]].sample_deltas()
    sampled, interval = guess_sampling(deltas) if deltas is not None else (False, None)
    overflow = overflow_flag(options, diags)
    if variant in ("regular", "split"):
        check_record_count(options, n, "the data section", diags)
    thread_col = dec.thread[:n]
    tdtype = thread_index_dtype(len(dec.thread_ids))
    if thread_col.dtype != tdtype:
        thread_col = thread_col.astype(tdtype)
    header = Header(
        variant=variant,
        version=version,
        clock=clock,
        key_version=key.version if key else None,
        vm=options.get("vm"),
        pid=to_int(options.get("pid")),
        start_time_us=start_time_us,
        elapsed_ns=elapsed,
        overflow=overflow,
        options=options,
        record_size=dec.layout.record_size,
        sampled=sampled,
        sampling_interval_us=interval,
    )
    events = EventTable(
        thread=thread_col,
        method=dec.method[:n],
        action=dec.action[:n],
        cpu=times.get("cpu"),
        wall=times.get("wall"),
    )
    threads = ThreadTable(id=np.array(dec.thread_ids, dtype=np.int64), name=tuple(thread_names))
    return Trace(header, threads, methods, events, diags, source)


def _method_table(dec: RecordDecoder, key: KeyText | None) -> MethodTable:
    lines = key.methods if key else {}
    cls, name, sig, src, line = [], [], [], [], []
    for mid in dec.method_ids:
        m = lines.get(mid)
        if m is None:
            cls.append(f"(0x{mid:x})")
            name.append("")
            sig.append("")
            src.append("")
            line.append(-1)
        else:
            cls.append(m.class_name)
            name.append(m.name)
            sig.append(m.signature)
            src.append(m.source_file)
            line.append(m.line)
    declared = np.zeros(len(dec.method_ids), dtype=bool)
    declared[: len(dec.method_ids) - len(dec.new_methods)] = True
    return MethodTable(
        id=np.array(dec.method_ids, dtype=np.uint64),
        class_name=tuple(cls),
        name=tuple(name),
        signature=tuple(sig),
        source_file=tuple(src),
        line=np.array(line, dtype=np.int32),
        declared=declared,
    )


def _sample(items: list[int] | list[str], k: int = 5) -> str:
    shown = ", ".join(str(i) for i in items[:k])
    return shown + (", …" if len(items) > k else "")
