"""The V2 packet walk: split the bytes after the 32-byte header into thread/method infos,
entry blocks and the summary, for one entry-block layout, stopping cleanly at damage.

`v2/walk.py` calls `probe` to pick the layout (generation x clock count) whose block headers
chain exactly through the file, then `walk` once with it; `blocks.py` decodes the blocks.
Per-packet work is a few `struct` reads, so 100k method infos cost a fraction of a second.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

HEADER_SIZE = 32
THREAD_INFO, METHOD_INFO, ENTRIES, SUMMARY = 0, 1, 2, 3

_U4U2 = struct.Struct("<IH")
_U8U2 = struct.Struct("<QH")
_U4 = struct.Struct("<I")
_U8 = struct.Struct("<Q")
_U2U2 = struct.Struct("<HH")


@dataclass(frozen=True)
class Layout:
    """One entry-block layout: `generation` alpha/beta/gamma, `clocks` 1 or 2, and for alpha
    the width of the first method value in the block header (8 = `ArtMethod*`, 4 = index)."""

    generation: str
    clocks: int
    id_width: int = 8

    @property
    def header_size(self) -> int:
        """Bytes of the block header, type byte included."""
        if self.generation == "alpha":
            return 1 + 4 + self.id_width + 4 * self.clocks + 2 + 2
        return 12

    @property
    def info_id_width(self) -> int:
        """Bytes of the id in a method-info packet (the early alpha wrote a u4 index)."""
        return self.id_width

    @property
    def name(self) -> str:
        """A short label for diagnostics, e.g. `beta/dual` or `alpha(u4)/single`."""
        gen = self.generation + ("(u4)" if self.id_width == 4 else "")
        return f"{gen}/{'dual' if self.clocks == 2 else 'single'}"


@dataclass
class Block:
    """One entry block: where it sits, whose it is, how many records it declares.

    `first` holds the alpha header's clear first record `(value, cpu, wall)` (None otherwise);
    `end` is the declared payload end, which is past the data when the block is truncated.
    """

    offset: int
    tid: int
    count: int
    payload: int
    end: int
    first: tuple[int, int | None, int | None] | None = None


@dataclass
class Walk:
    """What a walk found, in file order, and where and why it stopped."""

    threads: list[tuple[int, int, bytes]] = field(default_factory=list)  # (offset, tid, name)
    methods: list[tuple[int, int, bytes]] = field(default_factory=list)  # (offset, id, text)
    blocks: list[Block] = field(default_factory=list)
    summaries: list[tuple[int, bytes]] = field(default_factory=list)
    stop: int = HEADER_SIZE  # offset where clean packets end
    stop_reason: str | None = None  # None (clean end), "truncated" or "garbage"
    after_summary: int = 0  # packets seen after the first summary
    implausible: int = 0  # blocks whose payload does not hold the LEBs promised (with check)


def walk(
    data: bytes,
    layout: Layout | None,
    *,
    start: int = HEADER_SIZE,
    max_blocks: int | None = None,
    check: npt.NDArray[np.uint8] | None = None,
    into: Walk | None = None,
    info_width: int = 8,
    max_packets: int | None = None,
) -> Walk:
    """Walk packets from `start`; with `layout=None` stop before the first entry block.

    With `check` (the file as a uint8 array) every block is also checked for the LEB count
    its header promises (`probe` uses this); failing blocks are counted in `implausible`.
    `info_width` is the method-info id width while no layout is known (8, or 4: early alpha).
    `max_blocks` / `max_packets` end the walk early (cleanly) after that many.
    """
    out = into if into is not None else Walk()
    n = len(data)
    pos = start
    seen_blocks = 0
    budget = max_packets if max_packets is not None else n + 1
    while pos < n:
        budget -= 1
        if budget < 0:
            return _stop(out, pos, None)
        kind = data[pos]
        if kind in (THREAD_INFO, METHOD_INFO):
            width = 4 if kind == THREAD_INFO else (layout.info_id_width if layout else info_width)
            head = 1 + width + 2
            if pos + head > n:
                return _stop(out, pos, "truncated")
            ident, length = (_U4U2 if width == 4 else _U8U2).unpack_from(data, pos + 1)
            end = pos + head + length
            if end > n:
                return _stop(out, pos, "truncated")
            text = data[pos + head : end]
            if out.summaries:
                out.after_summary += 1
            if kind == THREAD_INFO:
                out.threads.append((pos, ident, text))
            else:
                out.methods.append((pos, ident, text))
            pos = end
        elif kind == ENTRIES:
            if layout is None or (max_blocks is not None and seen_blocks >= max_blocks):
                return _stop(out, pos, None)
            block = _block(data, pos, layout)
            if block is None:
                return _stop(out, pos, "truncated")
            if block.end > n:
                out.blocks.append(block)
                return _stop(out, pos, "truncated")
            if check is not None and not _plausible(check, block, layout):
                out.implausible += 1
            if out.summaries:
                out.after_summary += 1
            out.blocks.append(block)
            seen_blocks += 1
            pos = block.end
        elif kind == SUMMARY:
            if pos + 3 > n:
                return _stop(out, pos, "truncated")
            (length,) = struct.unpack_from("<H", data, pos + 1)
            end = min(pos + 3 + length, n)
            text = data[pos + 3 : end]
            if b"*end" not in text and text.startswith(b"*version"):
                # A summary longer than 64 KiB wraps its u2 length; ART stops it at `*end`.
                found = data.find(b"*end\n", pos + 3, pos + 3 + (1 << 20))
                if found >= 0:
                    end = found + 5
                    text = data[pos + 3 : end]
            out.summaries.append((pos, text))
            if pos + 3 + length > n and end == n and b"*end" not in text:
                return _stop(out, pos, "truncated")
            pos = end
        else:
            return _stop(out, pos, "garbage")
    return _stop(out, pos, None)


def _stop(out: Walk, pos: int, reason: str | None) -> Walk:
    out.stop = pos
    out.stop_reason = reason
    return out


def _block(data: bytes, pos: int, layout: Layout) -> Block | None:
    if pos + layout.header_size > len(data):
        return None
    (tid,) = _U4.unpack_from(data, pos + 1)
    if layout.generation != "alpha":
        count = int.from_bytes(data[pos + 5 : pos + 8], "little")
        (size,) = _U4.unpack_from(data, pos + 8)
        payload = pos + 12
        return Block(pos, tid, count, payload, payload + size)
    at = pos + 5
    first = (_U8 if layout.id_width == 8 else _U4).unpack_from(data, at)[0]
    at += layout.id_width
    cpu = wall = None
    if layout.clocks == 2:
        cpu, wall = struct.unpack_from("<II", data, at)
        at += 8
    else:
        (wall,) = _U4.unpack_from(data, at)  # the one clock; reader.py moves it if it is cpu
        at += 4
    rest, size = _U2U2.unpack_from(data, at)
    payload = at + 4
    return Block(pos, tid, rest + 1, payload, payload + size, (first, cpu, wall))


def _plausible(arr: npt.NDArray[np.uint8], block: Block, layout: Layout) -> bool:
    """The block's payload holds as many LEBs as its records need and ends on a terminator."""
    chunk = arr[block.payload : block.end]
    lebs = int(np.count_nonzero(chunk < 0x80))
    if len(chunk) and chunk[-1] >= 0x80:
        return False
    if layout.generation == "alpha":
        return lebs == (block.count - 1) * (1 + layout.clocks)
    if layout.generation == "beta":
        return lebs == block.count * (1 + layout.clocks)
    dual = layout.clocks - 1  # gamma: ts|action, [cpu], then a method id on entries only
    return block.count * (1 + dual) <= lebs <= block.count * (2 + dual)


LAYOUTS = (
    Layout("beta", 2),
    Layout("beta", 1),
    Layout("gamma", 2),
    Layout("gamma", 1),
    Layout("alpha", 2, 8),
    Layout("alpha", 1, 8),
    Layout("alpha", 2, 4),
    Layout("alpha", 1, 4),
)


def prefix(data: bytes) -> tuple[Walk, int | None]:
    """Walk to the first entry block, trying u8 then u4 method-info ids (the early alpha).

    Returns the walk and the info id width it proved (None when no method info came first).
    """
    wide = walk(data, None)
    if wide.stop_reason is None:
        return wide, (8 if wide.methods else None)
    narrow = walk(data, None, info_width=4)
    if _score(narrow)[:2] > _score(wide)[:2]:  # more whole infos read as u4 ids
        return narrow, 4
    return wide, (8 if wide.methods else None)


def _score(w: Walk) -> tuple[int, int, int]:
    good = sum(1 for _, _, text in w.methods if method_text_ok(text))
    return (int(w.stop_reason is None), good, w.stop)


def method_text_ok(text: bytes) -> bool:
    """A method-info text as ART writes it: tab-separated fields ending in a newline."""
    return text.endswith(b"\n") and text.count(b"\t") >= 2 and min(text[:-1] or b"\t") >= 9


def probe(
    data: bytes,
    arr: npt.NDArray[np.uint8],
    first_block: int,
    clocks: int,
    gamma_hint: bool,
    info_width: int | None,
) -> list[Layout]:
    """The best layouts for the blocks from `first_block` (64 blocks at most), best first.

    Ranked by how far the block sizes chain (all the way, or to the end of the sample, counts
    as the whole file), then whether most blocks hold the LEB count their header promises,
    then the header's clock count, then that share of blocks, then gamma when the header
    carries a TSC frequency (`gamma_hint`), else beta, alpha (u8 ids), alpha (u4 ids). Only
    layouts with `info_width` method-info ids are tried when the prefix proved one. Returns
    every layout tied with the best on all but the last criterion.
    """

    def rank(layout: Layout) -> tuple[int, int, int, float, int]:
        scan = walk(data, layout, start=first_block, max_blocks=64, check=arr, max_packets=20000)
        # A walk that ends cleanly (at EOF or at a sample limit) chained through everything
        # it looked at; only a walk stopped by damage is ranked by where it stopped.
        reach = len(data) if scan.stop_reason is None else scan.stop
        total = len(scan.blocks)
        quality = (total - scan.implausible) / total if total else 0.0
        order = {"gamma": 0 if gamma_hint else 3, "beta": 1, "alpha": 2}[layout.generation]
        pref = -(order * 2 + (0 if layout.id_width == 8 else 1))
        return reach, int(quality > 0.5), int(layout.clocks == clocks), quality, pref

    layouts = [lay for lay in LAYOUTS if info_width in (None, lay.info_id_width)]
    ranks = {layout: rank(layout) for layout in layouts}
    ordered = sorted(layouts, key=lambda lay: ranks[lay], reverse=True)
    best = ranks[ordered[0]][:4]
    return [lay for lay in ordered if ranks[lay][:4] == best]
