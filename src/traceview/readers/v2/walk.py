"""The V2 packet walk as the reader drives it: walk to the first entry block, choose the
block layout (`packets.probe`, then declared method ids to break ties), walk the rest,
and resynchronise after damage (`resync.py`), turning every stop into a diagnostic.

Called once per file by `v2/reader.py`; block decoding happens afterwards in `blocks.py`.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import numpy.typing as npt

from traceview.model import Diagnostic
from traceview.readers.idmap import IdMap
from traceview.readers.v2.blocks import decode_blocks
from traceview.readers.v2.packets import HEADER_SIZE, Layout, Walk, prefix, probe, walk
from traceview.readers.v2.resync import find_resync


def scan(
    buf: bytes, arr: npt.NDArray[np.uint8], clocks: int, base: int, diags: list[Diagnostic]
) -> tuple[Walk, Layout]:
    """Every packet of `buf` and the entry-block layout they were read with.

    `clocks` is what the header version says (1 or 2); `base` is added to every offset
    reported (bytes before the header, in the earliest summary-first file mode).
    """
    found, info_width = prefix(buf)
    layout = Layout("beta", clocks, info_width or 8)
    _resync(buf, arr, found, layout, base, diags, before_blocks=True)
    if found.stop_reason is None and found.stop < len(buf):  # stopped at the first block
        gamma_hint = any(buf[14:HEADER_SIZE])
        layouts = probe(buf, arr, found.stop, clocks, gamma_hint, info_width)
        layout, ties = _by_method_ids(buf, arr, found, layouts)
        walk(buf, layout, start=found.stop, into=found)
        if ties:
            names = ", ".join(t.name for t in ties)
            diags.append(
                Diagnostic(
                    "v2-format-ambiguous",
                    f"the entry blocks decode both as {layout.name} and as {names}; "
                    f"read as {layout.name}",
                    offset=base + found.blocks[0].offset if found.blocks else None,
                )
            )
        _resync(buf, arr, found, layout, base, diags)
    _walk_diagnostics(found, len(buf), base, diags)
    return found, layout


def _resync(
    buf: bytes,
    arr: npt.NDArray[np.uint8],
    found: Walk,
    layout: Layout,
    base: int,
    diags: list[Diagnostic],
    *,
    before_blocks: bool = False,
) -> None:
    """After damage, skip to where whole packets start again (each skip is a diagnostic).

    `before_blocks`: the walk is still before the first entry block (layout not yet chosen;
    `layout` is only a guess used to recognise blocks), so it goes on in that mode.
    """
    while found.stop_reason is not None:
        stop, start, cut = found.stop, found.stop + 1, None
        last = found.blocks[-1] if found.blocks else None
        if found.stop_reason == "truncated" and last is not None and last.offset == stop:
            start, cut = last.payload, last  # a size running past EOF may be damaged
        resume = find_resync(buf, arr, layout, start)
        if resume is None:
            return
        if cut is not None:
            cut.end = resume
            diags.append(
                Diagnostic(
                    "bad-block-size",
                    "an entry block's size runs past the end of the file while whole packets "
                    f"follow; the block is cut at byte {base + resume}",
                    offset=base + stop,
                )
            )
        else:
            diags.append(
                Diagnostic(
                    "skipped-bytes",
                    f"damaged packets: {resume - stop} byte(s) skipped to the next whole "
                    f"packet at byte {base + resume}",
                    offset=base + stop,
                    count=resume - stop,
                )
            )
        if before_blocks:
            walk(buf, None, start=resume, into=found, info_width=layout.info_id_width)
        else:
            walk(buf, layout, start=resume, into=found)


def _by_method_ids(
    buf: bytes, arr: npt.NDArray[np.uint8], found: Walk, layouts: list[Layout]
) -> tuple[Layout, list[Layout]]:
    """Among layouts that chain equally well, keep the one whose records name declared
    methods most often (a sample of the first 8 blocks, 4096 records or 64 KiB each);
    returns it and the layouts of other generations it could not beat."""
    if len(layouts) == 1:
        return layouts[0], []
    scores: dict[Layout, float] = {}
    before = np.array([m[1] for m in found.methods], dtype=np.uint64)
    for lay in layouts:
        sample = walk(buf, lay, start=found.stop, max_blocks=8, max_packets=20000)
        more = np.array([m[1] for m in sample.methods], dtype=np.uint64)
        declared = np.concatenate([before, more]) << np.uint64(2 if lay.id_width == 4 else 0)
        cut = [
            replace(b, count=min(b.count, 4096), end=min(b.end, b.payload + 65536))
            for b in sample.blocks
        ]
        rec = decode_blocks(arr, cut, lay, False)
        hits = IdMap(np.unique(declared)).lookup(rec.method) >= 0
        scores[lay] = float(hits.mean()) if len(hits) else 0.0
    top = max(scores.values())
    best = [lay for lay in layouts if scores[lay] == top]
    return best[0], [lay for lay in best[1:] if lay.generation != best[0].generation]


def _walk_diagnostics(found: Walk, size: int, base: int, diags: list[Diagnostic]) -> None:
    if found.stop_reason == "garbage":
        diags.append(
            Diagnostic(
                "trailing-bytes",
                f"{size - found.stop} byte(s) from here are not a V2 packet; ignored",
                offset=base + found.stop,
                count=size - found.stop,
            )
        )
    elif found.stop_reason == "truncated":
        diags.append(
            Diagnostic(
                "truncated-packet",
                "the file ends inside a packet (cut off); complete records were kept",
                offset=base + found.stop,
            )
        )
    if found.after_summary:
        diags.append(
            Diagnostic(
                "packets-after-summary",
                f"{found.after_summary} packet(s) follow the summary; read anyway",
                count=found.after_summary,
            )
        )
    if len(found.summaries) > 1:
        diags.append(
            Diagnostic(
                "duplicate-summary",
                f"{len(found.summaries)} summary packets; the first one is used",
                offset=base + found.summaries[1][0],
            )
        )
