"""Which layout of format.md §1.8's history a low-overhead dump has, from its bytes alone.

Readable: 12-byte block headers in either mode (ART since 2025-02-25) and 8-byte headers in the
all-methods mode (earlier; a text trailer names threads and methods). Each candidate walks the
first packets; the one whose first block with events checks out (a long-running block's timed
events end exactly at its size; an all-methods block's `n` LEBs end where a packet starts)
and that walks furthest wins (an 8-byte layout only beside a text trailer, as ART wrote it).
Refused in one line, naming the layout: ART's first text dumps (`Thread:` lines, Dec 2024 -
Feb 2025) and the long-running blocks of Feb 2025 (8-byte headers, the method before the time
and no exit flag: they cannot be split unambiguously).
"""

from __future__ import annotations

import numpy as np

from traceview.model import TraceFormatError
from traceview.readers.lowoverhead.packets import ENTRIES, Layout, Packets, walk
from traceview.readers.lowoverhead.scan import block_end
from traceview.readers.lowoverhead.timed import decode_timed
from traceview.readers.lowoverhead.timeless import decode_timeless
from traceview.readers.lowoverhead.trailer import TEXT_TRAILER

__all__ = ["CANDIDATES", "choose", "refuse_text_layout"]

CANDIDATES = (Layout(12, "long-running"), Layout(12, "all"), Layout(8, "all"))
PROBE = 64  # packets walked per candidate


def refuse_text_layout(data: bytes | memoryview) -> None:
    """Raise for ART's first long-running dumps, written as text (`Thread:tid`, `->ptr time`)."""
    if bytes(data[:7]) == b"Thread:":
        raise TraceFormatError(
            "an Android 16 long-running dump in ART's first text layout (December 2024 - "
            "February 2025: 'Thread:' and '->method time' lines): not supported",
            offset=0,
            expected="binary packets (type 0-3)",
            found="'Thread:'",
        )


def choose(data: bytes | memoryview) -> tuple[Layout, Packets, bool]:
    """The best candidate layout, its probe walk, and whether a block with events checked
    out under it. Raises for the refused February 2025 long-running layout."""
    refuse_text_layout(data)
    buf = np.frombuffer(data, dtype=np.uint8)
    text = (data if isinstance(data, bytes) else bytes(data)).find(TEXT_TRAILER) >= 0
    scored = []
    for layout in CANDIDATES:
        found = walk(data, layout, limit=PROBE)
        checked = _checked(buf, found)
        of_its_time = layout.header == 12 or text  # ART wrote 8-byte blocks with text infos
        walked = found.walked + sum(b.cut for b in found.blocks)  # cut by the input's end
        score = (int(checked and of_its_time), int(of_its_time), walked, -_damage(found))
        scored.append((score, layout, found))
    top = max(score for score, _, _ in scored)
    tied = [(layout, found) for score, layout, found in scored if score == top]
    layout, found = tied[0] if len(tied) == 1 else _tie_break(data, tied)
    checked = bool(top[0])
    if not checked and _first_is_block(data) and text:
        raise TraceFormatError(
            "an Android 16 long-running dump in ART's layout of 7-25 February 2025 (8-byte "
            "block headers, the method delta before the time and no exit flag): its events "
            "cannot be told apart unambiguously; not supported",
            offset=0,
            expected="12-byte block headers (ART since 2025-02-25)",
            found="blocks that decode under no later layout, and a text trailer",
        )
    return layout, found, bool(checked)


def _tie_break(
    data: bytes | memoryview, tied: list[tuple[Layout, Packets]]
) -> tuple[Layout, Packets]:
    """Layouts that walk alike (all-methods blocks of 8 and 12 bytes, when the 4 unwritten
    bytes are LEB continuation bytes; any two on a cut input): the one whose first events
    enter declared methods wins, else the one the trailer implies (text: 8 bytes; ART wrote
    12 with text for one day), else the first candidate."""
    best: tuple[tuple[int, int], Layout, Packets] | None = None
    for layout, probe in tied:
        whole = walk(data, layout)
        first = [b for b in whole.blocks if b.count][:1]
        matches = 0
        if first:
            if layout.mode == "all":
                ev = decode_timeless(data, first, [], infos=True)
            else:
                ev = decode_timed(data, first, [])
            entries = ev.method_id[~ev.exit][:64]
            matches = int(np.isin(entries, np.array(whole.method_ids, dtype=np.uint64)).sum())
        prefer = int((layout.header == 8) == (whole.trailer == "text"))
        score = (matches, prefer)
        if best is None or score > best[0]:
            best = (score, layout, probe)
    assert best is not None
    return best[1], best[2]


def _first_is_block(data: bytes | memoryview) -> bool:
    pos = 0
    while pos < len(data) and data[pos] == 3:
        pos += 17
    return pos < len(data) and data[pos] == ENTRIES


def _checked(buf: np.ndarray, found: Packets) -> bool:
    """The first block with events is consistent with the walk's layout."""
    for block in found.blocks:
        if block.count == 0:
            continue
        if len(buf) < block.offset + 12:  # too short to tell 8-byte headers from 12
            return False
        if found.layout.mode == "long-running":
            if block.cut:  # cut by the end of the input: its size must be plausible
                size = int.from_bytes(buf[block.offset + 8 : block.offset + 12].tobytes(), "little")
                return block.count <= size <= 20 * block.count and not _damaged(found, None)
            return block_end(buf, block.start, block.count) == block.end
        if block.cut and not (buf[block.start : block.end] < 0x80).any():
            return False  # not one complete event: no evidence
        return not _damaged(found, None if block.cut else block.end)
    return False


def _damage(found: Packets) -> int:
    """Diagnostics other than a cut input."""
    return sum(d.code not in ("truncated-block", "truncated-record") for d in found.diags)


def _damaged(found: Packets, at: int | None) -> bool:
    """Damage other than a cut input (anywhere when `at` is None, else at offset `at`)."""
    return any(
        d.code not in ("truncated-block", "truncated-record") and (at is None or d.offset == at)
        for d in found.diags
    )
