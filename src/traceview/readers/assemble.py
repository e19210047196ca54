"""The one assembly step of every reader: columns found in the file become a `Trace`.

V1 (`v1/tables.py`) and V2 (`v2/reader.py`) decode records their own way, then hand their
thread ids and names, method fields, event columns and what the file says about itself to
`thread_table`, `method_table` and `assemble`, which build the model tables and the header
and add the whole-trace diagnostics both families share (overflow, record count).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from traceview.model import (
    Axis,
    Clock,
    Diagnostic,
    EventTable,
    Header,
    MethodTable,
    ThreadTable,
    Trace,
    Variant,
)
from traceview.readers.summary import check_record_count, overflow_flag, to_int

U64 = npt.NDArray[np.uint64]


@dataclass
class About:
    """What a file says about itself, as the readers found it (becomes the `Header`)."""

    variant: Variant
    version: int
    clock: Clock
    key_version: int | None = None
    options: dict[str, str] = field(default_factory=dict)
    start_time_us: int | None = None
    elapsed_ns: int | None = None
    record_size: int | None = None
    sampled: bool = False
    sampling_interval_us: float | None = None
    entry_format: str | None = None
    records_where: str | None = None  # checked against num-method-calls when set
    records: int | None = None  # the records read, when the events are not kept (streamed)
    event_types: tuple[str, ...] = ()
    axis: Axis = "time"
    end_ns: int | None = None
    monotonic_offset_ns: int | None = None


@dataclass
class MethodFields:
    """The name columns of declared methods, one entry per declared id, in table order."""

    class_name: list[str] = field(default_factory=list)
    name: list[str] = field(default_factory=list)
    signature: list[str] = field(default_factory=list)
    source_file: list[str] = field(default_factory=list)
    line: list[int] = field(default_factory=list)
    key_line: list[str | None] = field(default_factory=list)

    def add(
        self, cls: str, name: str, sig: str, source: str, line: int, key_line: str | None = None
    ) -> None:
        """Append one method's fields (`key_line`: its key line after the id, as written)."""
        self.class_name.append(cls)
        self.name.append(name)
        self.signature.append(sig)
        self.source_file.append(source)
        self.line.append(line)
        self.key_line.append(key_line)


def thread_table(ids: Sequence[int], names: Sequence[str | None]) -> ThreadTable:
    """The thread table: one row per (id, name) in the order given."""
    return ThreadTable(id=np.array(list(ids), dtype=np.int64), name=tuple(names))


def method_table(
    declared: Sequence[int] | U64, fields: MethodFields, unknown: Sequence[int] | U64
) -> MethodTable:
    """Declared methods (with `fields`), then one `(0x…)` row per id used but never declared."""
    unknown_list = [
        int(v) for v in (unknown.tolist() if isinstance(unknown, np.ndarray) else unknown)
    ]
    for value in unknown_list:
        fields.add(f"(0x{value:x})", "", "", "", -1)
    ids = np.concatenate(
        [np.asarray(declared, dtype=np.uint64), np.array(unknown_list, dtype=np.uint64)]
    )
    flags = np.zeros(len(ids), dtype=bool)
    flags[: len(ids) - len(unknown_list)] = True
    return MethodTable(
        id=ids,
        class_name=tuple(fields.class_name),
        name=tuple(fields.name),
        signature=tuple(fields.signature),
        source_file=tuple(fields.source_file),
        line=np.array(fields.line, dtype=np.int32),
        declared=flags,
        key_line=tuple(fields.key_line) if any(k is not None for k in fields.key_line) else None,
    )


def assemble(
    about: About,
    threads: ThreadTable,
    methods: MethodTable,
    events: EventTable,
    diags: list[Diagnostic],
    source: str | None,
) -> Trace:
    """The Trace, with the header and the diagnostics every reader adds at the end."""
    options = about.options
    overflow = overflow_flag(options, diags)
    if about.records_where is not None:
        read = len(events) if about.records is None else about.records
        check_record_count(options, read, about.records_where, diags)
    header = Header(
        variant=about.variant,
        version=about.version,
        clock=about.clock,
        key_version=about.key_version,
        vm=options.get("vm"),
        pid=to_int(options.get("pid")),
        start_time_us=about.start_time_us,
        elapsed_ns=about.elapsed_ns,
        overflow=overflow,
        options=options,
        record_size=about.record_size,
        sampled=about.sampled,
        sampling_interval_us=about.sampling_interval_us,
        entry_format=about.entry_format,
        event_types=about.event_types,
        axis=about.axis,
        end_ns=about.end_ns,
        monotonic_offset_ns=about.monotonic_offset_ns,
    )
    return Trace(header, threads, methods, events, diags, source)
