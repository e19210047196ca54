"""What the `diff` exporters share about call paths (a `Comparison`'s `PathDiff`, analysis/
compare.py): which paths a table shows, a path as a short line of frames, and the per-path
JSON rows. The numbers are the comparison's; nothing is recomputed here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from traceview.analysis.compare import Comparison
from traceview.analysis.diff import DiffView
from traceview.analysis.paths import PathDiff
from traceview.analysis.significance import STATES
from traceview.model import visible

PATH_ROWS = 15  # rows of the text and Markdown path tables (`--limit 0`: all)
SHOWN_FRAMES = 4  # frames of a path written out in a table (the rest is "… N frames")
MORE_FRAMES = 4  # more frames written where two lines would read the same
CHANGED = ("slower", "faster", "new", "gone")


def paths_of(dv: DiffView) -> PathDiff | None:
    """The comparison's top-down paths (None for a diff of methods alone)."""
    return dv.paths if isinstance(dv, Comparison) else None


def changed_paths(dv: Comparison, paths: PathDiff, limit: int | None) -> tuple[list[int], int]:
    """Rows for a path table: gated paths that are slower or faster, and the topmost path of
    each subtree that is new or gone (its descendants are too) whose inclusive time is at
    least the minimum, by decreasing size of the change (of the gated metric; for a new or
    gone path, its inclusive time), then pre-order; cut to `limit` (None: `PATH_ROWS`, 0:
    all). Also how many were left out."""
    state = paths.state
    words = [STATES.index(w) for w in CHANGED]
    picked = np.isin(state, words[:2]) & paths.gated
    one_side = np.isin(state, words[2:])
    up = np.maximum(paths.parent, 0)
    top = one_side & ((paths.parent < 0) | (state[up] != state))
    size = np.maximum(paths.incl.base, paths.incl.cand)
    picked |= top & (size >= dv.thresholds.min_time_ns)
    m = paths.change(dv.thresholds.metric)
    rows = np.flatnonzero(picked)
    delta = np.where(one_side[rows], size[rows], np.abs(np.nan_to_num(m.delta[rows])))
    order = rows[np.lexsort((rows, -delta))].tolist()
    n = PATH_ROWS if limit is None else limit
    if n <= 0:
        return order, 0
    return order[:n], max(len(order) - n, 0)


def short(name: str) -> str:
    """`a.b.C.method` -> `C.method` (a thread's name stays)."""
    head, dot, method = name.rpartition(".")
    return f"{head.rpartition('.')[2]}.{method}" if dot and head else name


def path_lines(dv: Comparison, paths: PathDiff, rows: list[int]) -> list[str]:
    """Each path of `rows` as `thread › … 12 frames › C.caller › C.method`: the thread, how
    many frames are left out, then the last `SHOWN_FRAMES` frames (classes without their
    package), up to `MORE_FRAMES` more where two lines would still read the same. Untrusted
    text: the caller escapes it."""
    names = [[short(n) for n in dv.path_names(paths, r)] for r in rows]
    shown = [SHOWN_FRAMES] * len(rows)

    def line(i: int) -> str:
        head, tail = names[i][0], names[i][1:]
        if len(tail) > shown[i]:
            left = len(tail) - shown[i]
            tail = [f"… {left} frame{'s' if left > 1 else ''}", *tail[-shown[i] :]]
        return " › ".join([head, *tail])

    for _ in range(MORE_FRAMES + 1):
        lines = [line(i) for i in range(len(rows))]
        seen: dict[str, list[int]] = {}
        for i, text in enumerate(lines):
            seen.setdefault(text, []).append(i)
        longer = [i for same in seen.values() if len(same) > 1 for i in same]
        longer = [i for i in longer if shown[i] < len(names[i]) - 1]
        if not longer:
            break
        for i in longer:
            shown[i] += 1
    return [line(i) for i in range(len(rows))]


def path_json(dv: Comparison, paths: PathDiff, min_time_ns: int) -> tuple[list[Any], int]:
    """Per-path JSON rows, pre-order: every path whose median inclusive time is at least
    `min_time_ns` on either side (so its callers are listed too: a caller's time is never
    less), each with `parent` (the index of its caller's row, null for a thread) and its
    last `frame`; and how many smaller paths were left out."""
    from traceview.exporters.diff_json import change_json

    big = np.maximum(paths.incl.base, paths.incl.cand) >= min_time_ns
    rows = np.flatnonzero(big)
    index = np.full(len(paths), -1, dtype=np.int64)
    index[rows] = np.arange(len(rows))
    out = []
    for r in rows.tolist():
        up = int(paths.parent[r])
        out.append(
            {
                "parent": int(index[up]) if up >= 0 else None,
                "frame": visible(dv.frames.label(int(paths.frame[r]))),
                "depth": int(paths.depth[r]),
                "state": paths.state_name(r),
                "gated": bool(paths.gated[r]),
                "on_baseline": bool(paths.on_base[r]),
                "on_candidate": bool(paths.on_cand[r]),
                "incl": change_json(paths.incl, r),
                "excl": change_json(paths.excl, r),
                "calls": change_json(paths.calls, r, unit_us=False),
            }
        )
    return out, int(len(paths) - len(rows))
