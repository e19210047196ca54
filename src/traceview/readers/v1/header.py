"""The V1 data header (`SLOW`, 32 bytes) and the record layout and clock it implies.

Used by every V1 reader (regular, split, data-only, streaming) before decoding records: it
honours offset-to-data (16 for createtesttrace), the v3 record size (extra bytes ignored;
18 may mean the 2015 u8 method ids) and checks `clock=` against what the records hold.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from traceview.model import Clock, Diagnostic, TraceFormatError
from traceview.readers.v1.records import Layout

MAGIC = b"SLOW"


@dataclass(frozen=True)
class DataHeader:
    """The V1 data header: version as written, absolute offset of the first record, etc."""

    version: int
    data_start: int
    start_time_us: int
    record_size: int | None  # the v3 field as written


def parse_data_header(head: bytes, base: int, diags: list[Diagnostic]) -> DataHeader:
    """Parse the `SLOW` header found at absolute offset `base` (`head` = its first bytes)."""
    if head[:4] != MAGIC:
        raise TraceFormatError(
            "no data section after the key", offset=base, expected="'SLOW'", found=_show(head[:4])
        )
    if len(head) < 16:
        raise TraceFormatError(
            "data header is truncated", offset=base, expected="16+ bytes", found=f"{len(head)}"
        )
    version, offset, start = struct.unpack_from("<HHQ", head, 4)
    record_size = None
    if version & 0x0F == 3 and len(head) >= 18 and offset >= 18:
        (record_size,) = struct.unpack_from("<H", head, 16)
    if offset < 16:
        diags.append(
            Diagnostic(
                "bad-data-offset",
                f"data header says records start {offset} bytes in (< 16); assuming 32",
                offset=base + 6,
            )
        )
        offset = 32
    return DataHeader(version, base + offset, start, record_size)


def layout_for(
    version: int, record_size: int | None, first: bytes, diags: list[Diagnostic], at: int
) -> Layout:
    """The record layout of a v1-3 data section; `first` = the first records' bytes."""
    v = version & 0x0F
    if v == 1:
        return Layout(1, 9, ("t",))
    if v == 2:
        return Layout(2, 10, ("t",))
    size = record_size or 0
    if size == 18 and len(first) >= 18:
        recs = np.frombuffer(first[: len(first) // 18 * 18], dtype=np.uint8).reshape(-1, 18)
        if recs[:, 14:18].any():  # padding would be zero; u8 ids put the wall time there
            diags.append(
                Diagnostic(
                    "wide-method-ids",
                    "18-byte records with u8 method values (ART development builds of 2015)",
                    offset=at,
                )
            )
            return Layout(3, 18, ("t", "t"), wide_ids=True)
    if size >= 14:
        return Layout(3, size, ("t", "t"))
    if size >= 10:
        diags.append(
            Diagnostic(
                "bad-record-size",
                f"v3 record size {size} < 14 leaves room for one clock only; read as single-clock",
                offset=at,
            )
        )
        return Layout(3, size, ("t",))
    diags.append(Diagnostic("bad-record-size", f"v3 record size {size}; assuming 14", offset=at))
    return Layout(3, 14, ("t", "t"))


def resolve_clock(
    layout: Layout, options: dict[str, str], diags: list[Diagnostic], *, guessed: bool = False
) -> tuple[Layout, Clock]:
    """Name the layout's time fields from `clock=` (checked against what the records hold)."""
    said = options.get("clock")
    two = len(layout.clocks) == 2
    clock: Clock
    names: tuple[str, ...]
    if two:
        clock, names = "dual", ("cpu", "wall")
        if said is not None and said != "dual":
            diags.append(
                Diagnostic(
                    "clock-mismatch",
                    f"clock={said} but the records hold two times; read as dual",
                )
            )
    else:
        # `global` (early Dalvik, no POSIX clocks): "a common clock across all threads", wall
        names = ("wall",) if said in ("wall", "global") else ("cpu",)
        clock = said if said in ("wall", "thread-cpu", "global") else "thread-cpu"  # type: ignore[assignment]
        if said == "dual":
            diags.append(
                Diagnostic(
                    "clock-mismatch",
                    "clock=dual but the records hold one time; read as thread-cpu",
                )
            )
        elif said is not None and said not in ("wall", "thread-cpu", "global"):
            diags.append(Diagnostic("unknown-clock", f"unknown clock={said}; read as thread-cpu"))
    if said is None:
        why = "guessed" if guessed else "missing"
        diags.append(
            Diagnostic(
                f"clock-{why}",
                f"no clock= option; the records imply {clock}"
                + (" (as stream-trace-converter assumes)" if guessed else ""),
            )
        )
    out = Layout(layout.version, layout.record_size, names, layout.wide_ids)
    return out, clock


def _show(raw: bytes) -> str:
    return repr(raw) if raw else "end of file"
