"""Reads Android 16's low-overhead method dumps (format.md §1.8), in both modes and every layout
of ART's history that can be read, into a `Trace`; ANR reports carrying them are in `anr.py`.

No file header: packets read by their type byte (`packets.py`): entry blocks, method and
thread infos (binary, or the early text trailer), the summary packet of the newest ART (end
time and CLOCK_MONOTONIC, anywhere in the stream). The layout (block header size, mode) comes
from the bytes (`layout.py`); refused layouts are named in one line. Long-running dumps keep
times (`timed.py`, unit told from the bytes); all-methods dumps have none and are read with the
order of events as the axis (`timeless.py`). `modes.py` builds the trace, `build.py` holds
what both share (threads, methods, exits paired with their entries by stack level).
"""

from __future__ import annotations

from collections.abc import Collection

from traceview.model import Trace, TraceFormatError
from traceview.readers.lowoverhead.build import UNKNOWN_METHOD
from traceview.readers.lowoverhead.layout import choose
from traceview.readers.lowoverhead.modes import all_methods, long_running
from traceview.readers.lowoverhead.packets import METHOD_HEADER, METHOD_INFO, walk
from traceview.readers.lowoverhead.timed import COUNTER_HZ
from traceview.readers.source import Source

__all__ = ["COUNTER_HZ", "UNKNOWN_METHOD", "read", "read_dump", "sniff"]


def sniff(head: bytes) -> bool:
    """True when `head` (the first bytes) starts like a low-overhead dump: a block with events
    that checks out under some layout, a method info with tab-separated text, a run of empty
    blocks and summaries, or a layout that `read` refuses by name."""
    try:
        layout, found, checked = choose(head)
    except TraceFormatError:
        return True  # a known, refused layout: `read` names it
    if checked:
        return True
    first = head[:1]
    if first == bytes([METHOD_INFO]) and len(head) > METHOD_HEADER:
        return bool(found.method_texts) and found.method_texts[0].count(b"\t") >= 2
    damaged = any(d.code in ("unknown-packet", "bad-block") for d in found.diags)
    return first in (b"\x02", b"\x03") and found.walked >= 2 and not damaged and layout.header == 12


def read(
    src: Source | bytes | memoryview,
    *,
    source: str | None = None,
    clocks: Collection[str] | None = None,
) -> Trace:
    """Read a whole low-overhead dump (`clocks`: the readers' contract; `load` drops the
    columns not wanted)."""
    return read_dump(src.whole() if isinstance(src, Source) else src, source=source)


def read_dump(data: bytes | memoryview, *, source: str | None = None) -> Trace:
    """Read a dump held in memory (a file's bytes, or one decoded from an ANR report)."""
    layout, _, _ = choose(data)
    found = walk(data, layout)
    if not found.blocks and not found.method_ids:
        raise TraceFormatError(
            "no entry block or method info in this Android 16 low-overhead dump",
            offset=0,
            expected="a packet of type 2 or 1",
            found="; ".join(d.message for d in found.diags) or f"{len(data)} bytes",
        )
    if not any(b.end > b.start for b in found.blocks) and not found.method_ids:
        raise TraceFormatError(
            "this Android 16 low-overhead dump holds no complete event",
            offset=0,
            expected="an entry block with its events",
            found="; ".join(d.message for d in found.diags) or "empty blocks",
        )
    if layout.mode == "all":
        return all_methods(data, found, source)
    return long_running(data, found, source)
