"""One walk over an Android 16 low-overhead dump's packets (format.md §1.8), read by type byte:
`2` entry blocks, `1` method infos, `0` thread infos, `3` the summary (end time, monotonic
time), and the text trailer (`*threads` … `*methods` … `*end`) older ART wrote instead of
type 0/1 packets.

An entry block's header is 12 bytes (`u1 2 | u4 tid | u3 n | u4 size`) or, before ART's
2025-02-25 change, 8 (no size). A long-running block is walked by its size; an all-methods
block has none worth reading (never written), so its end is after exactly `n` one-LEB events,
found from the file's LEB terminators (`Terminators`). Which layout a file has comes from the
bytes (`layout.probe`), never from the name.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from traceview.model import Diagnostic
from traceview.readers.lowoverhead.trailer import TEXT_TRAILER, parse_trailer

__all__ = ["Block", "Layout", "Packets", "walk"]

ENTRIES, METHOD_INFO, THREAD_INFO, SUMMARY = 2, 1, 0, 3
METHOD_HEADER, THREAD_HEADER, SUMMARY_SIZE = 11, 7, 17
MAX_LEB_BYTES = 10


@dataclass(frozen=True)
class Layout:
    """How entry blocks are laid out: header bytes (12, or 8 before 2025-02-25) and mode
    (`long-running`: timed events, size written; `all`: one LEB per event, no size)."""

    header: int
    mode: str

    @property
    def name(self) -> str:
        """The layout as messages name it."""
        mode = "long-running methods" if self.mode == "long-running" else "all methods"
        return f"{mode}, {self.header}-byte block headers"


@dataclass(frozen=True)
class Block:
    """One entry block: header `offset`, thread `tid`, `count` events announced, payload
    `[start, end)`; `cut` when the file ends inside it."""

    offset: int
    tid: int
    count: int
    start: int
    end: int
    cut: bool = False


@dataclass
class Packets:
    """What one walk found, in file order."""

    layout: Layout
    blocks: list[Block] = field(default_factory=list)
    method_ids: list[int] = field(default_factory=list)
    method_texts: list[bytes] = field(default_factory=list)
    thread_names: dict[int, str] = field(default_factory=dict)
    summaries: list[tuple[int, int, int]] = field(default_factory=list)  # offset, end, mono
    trailer: str | None = None  # "binary" (type 0/1 packets) or "text"
    diags: list[Diagnostic] = field(default_factory=list)
    walked: int = 0  # packets read whole
    end: int = 0  # where the walk stopped

    @property
    def clean(self) -> bool:
        """No damage met."""
        return not self.diags


class Terminators:
    """The offsets of every byte below 0x80 (each ends a LEB), computed once per file, so the
    end of `n` one-LEB events is a lookup, never a decode sized by `n`."""

    def __init__(self, buf: npt.NDArray[np.uint8]) -> None:
        self.at = np.flatnonzero(buf < 0x80)

    def end_after(self, start: int, n: int) -> tuple[int | None, bool]:
        """Where `n` LEBs from `start` end (None: the file ends first) and whether one of
        them is longer than 10 bytes (not a LEB ART writes)."""
        if n == 0:
            return start, False
        k = int(np.searchsorted(self.at, start))
        last = k + n - 1
        if last >= len(self.at):
            return None, False
        ends = self.at[k : last + 1]
        overlong = int(ends[0]) - start >= MAX_LEB_BYTES
        if n > 1:
            overlong |= bool((np.diff(ends) > MAX_LEB_BYTES).any())
        return int(ends[-1]) + 1, overlong


def walk(data: bytes | memoryview, layout: Layout, *, limit: int | None = None) -> Packets:
    """Every packet under `layout`, stopping at damage (said in `diags`) or after `limit`."""
    view = memoryview(data)
    size = len(view)
    out = Packets(layout)
    terms: Terminators | None = None
    pos = 0
    while pos < size and (limit is None or out.walked < limit):
        kind = view[pos]
        if kind == ENTRIES:
            if pos + layout.header > size:
                return _stop(out, pos, "truncated-record", "the input ends inside a block header")
            tid, n3 = struct.unpack_from("<I3s", view, pos + 1)
            n = int.from_bytes(n3, "little")
            start = pos + layout.header
            if layout.mode == "long-running":
                (length,) = struct.unpack_from("<I", view, pos + 8)
                end: int | None = start + int(length)
                overlong = False
            else:
                if terms is None:
                    terms = Terminators(np.frombuffer(data, dtype=np.uint8))
                end, overlong = terms.end_after(start, n)
            if overlong:
                return _stop(out, pos, "bad-block", f"a {n}-event block holds a LEB over 10 bytes")
            if end is None or end > size:
                out.blocks.append(Block(pos, int(tid), n, start, size, cut=True))
                return _stop(
                    out, pos, "truncated-block", f"the input ends inside a {n}-event block"
                )
            out.blocks.append(Block(pos, int(tid), n, start, end))
            pos = end
        elif kind == SUMMARY:
            if pos + SUMMARY_SIZE > size:
                return _stop(out, pos, "truncated-record", "the input ends inside a summary packet")
            end_ns, mono_ns = struct.unpack_from("<QQ", view, pos + 1)
            out.summaries.append((pos, int(end_ns), int(mono_ns)))
            pos += SUMMARY_SIZE
        elif kind in (METHOD_INFO, THREAD_INFO):
            head = METHOD_HEADER if kind == METHOD_INFO else THREAD_HEADER
            if pos + head > size:
                return _stop(out, pos, "truncated-record", "the input ends inside an info header")
            (length,) = struct.unpack_from("<H", view, pos + head - 2)
            if pos + head + length > size:
                return _stop(out, pos, "truncated-record", "the input ends inside an info packet")
            text = bytes(view[pos + head : pos + head + length])
            if kind == METHOD_INFO:
                out.method_ids.append(struct.unpack_from("<Q", view, pos + 1)[0])
                out.method_texts.append(text)
            else:
                tid = struct.unpack_from("<I", view, pos + 1)[0]
                out.thread_names[int(tid)] = text.decode("utf-8", "surrogateescape")
            out.trailer = "binary"
            pos += head + length
        elif bytes(view[pos : pos + len(TEXT_TRAILER)]) == TEXT_TRAILER:
            pos = parse_trailer(view, pos, out.method_ids, out.method_texts, out.thread_names)
            out.trailer = "text"
        else:
            return _stop(
                out,
                pos,
                "unknown-packet",
                f"packet type {kind} is none of 0 (thread), 1 (method), 2 (entries), "
                f"3 (summary); the {size - pos} bytes from here were skipped",
            )
        out.walked += 1
    out.end = pos
    return out


def _stop(out: Packets, pos: int, code: str, message: str) -> Packets:
    out.diags.append(Diagnostic(code, message, offset=pos))
    out.end = pos
    return out
