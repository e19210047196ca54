"""Resynchronise the V2 packet walk after damage: find where whole packets start again.

`v2/walk.py` calls `find_resync` when the walk stops on garbage (or on a block whose size
runs past the end of the file while much more follows); the bytes in between are skipped
with a diagnostic instead of losing the rest of the trace. Candidates are filtered with
numpy (type byte 0-3, lengths that fit), then confirmed by walking a few checked packets.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from traceview.readers.v2.packets import Layout, method_text_ok, walk

WINDOW = 1 << 20  # look at most 1 MiB past the damage
ATTEMPTS = 4000  # confirmations tried at most


def find_resync(data: bytes, arr: npt.NDArray[np.uint8], layout: Layout, start: int) -> int | None:
    """The first offset >= `start` from which packets chain again, or None."""
    n = len(data)
    stop = min(n, start + WINDOW)
    if start >= n - 1:
        return None
    window = arr[start:stop]
    cand = np.flatnonzero(window <= 3) + start
    cand = cand[_fits(arr, cand, layout, n)]
    for q in cand[:ATTEMPTS].tolist():
        if _confirmed(data, arr, layout, q):
            return int(q)
    return None


def _u(arr: npt.NDArray[np.uint8], at: npt.NDArray[np.int64], width: int) -> npt.NDArray[np.int64]:
    """Little-endian unsigned ints of `width` bytes at `at` (positions must be in range)."""
    out = np.zeros(len(at), dtype=np.int64)
    for k in range(width):
        out |= arr[at + k].astype(np.int64) << (8 * k)
    return out


def _fits(
    arr: npt.NDArray[np.uint8], cand: npt.NDArray[np.int64], layout: Layout, n: int
) -> npt.NDArray[np.bool_]:
    """Candidates whose packet header fits in the file and whose packet ends by EOF."""
    kind = arr[cand]
    ok = np.zeros(len(cand), dtype=bool)
    info = ((kind == 0) | (kind == 1)) & (cand + 1 + 8 + 2 <= n)
    width = np.where(kind == 0, 4, layout.info_id_width)
    at = cand[info]
    length = _u(arr, at + 1 + width[info], 2)
    ok[info] = at + 1 + width[info] + 2 + length <= n
    block = (kind == 2) & (cand + layout.header_size <= n)
    at = cand[block]
    if layout.generation == "alpha":
        size = _u(arr, at + layout.header_size - 2, 2)
    else:
        size = _u(arr, at + 8, 4)
    ok[block] = at + layout.header_size + size <= n
    summary = (kind == 3) & (cand + 11 <= n)
    at = cand[summary]
    ok[summary] = (arr[at + 3] == ord("*")) & (arr[at + 4] == ord("v"))
    return ok


def _confirmed(data: bytes, arr: npt.NDArray[np.uint8], layout: Layout, q: int) -> bool:
    """Whole, plausible packets from `q`: info texts that look like names, every block with
    the LEBs it promises, and a block or summary among at least two packets (or four infos,
    or one block/summary ending exactly at EOF)."""
    scan = walk(data, layout, start=q, max_blocks=8, check=arr, max_packets=20000)
    if scan.implausible or scan.stop_reason == "garbage":
        return False
    if not all(method_text_ok(t) for _, _, t in scan.methods):
        return False
    if not all(_thread_name(t) for _, _, t in scan.threads):
        return False
    if any(not t.startswith(b"*version") for _, t in scan.summaries):
        return False
    anchors = len(scan.blocks) + len(scan.summaries)
    packets = anchors + len(scan.threads) + len(scan.methods)
    if scan.stop_reason == "truncated":
        return anchors >= 1 and packets >= 3
    if anchors:
        return packets >= 2 or scan.stop == len(data)
    return packets >= 4


def _thread_name(text: bytes) -> bool:
    return min(text or b" ") >= 0x20
