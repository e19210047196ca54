"""The `diff-svg` format: a comparison of runs (`analysis.compare.Comparison`) as one
standalone, interactive differential flame graph (one SVG file, no network): `traceview diff
BASE... --vs NEW... -o diff.svg`.

The layout is the comparison's (`Comparison.diff_flame`, analysis/layout/diffflame.py), for
both sides: widths the candidate's median inclusive time (a button switches to the
baseline's), colours the change of each call path on the gated metric — red slower, blue
faster, deeper with the relative change, grey within noise — and a dashed outline on paths
of one side only. The document is the one both flame graph formats share (`flamesvg.py`:
every frame drawn, so the file shows the graph where scripts do not run; click to zoom,
search); this module supplies the colours, the legend, the hover words (both sides, Δ, Δ %,
significance: written here, in Python) and its part of the script (`diffflame.js`: the side
switch). Frames narrower than 1/`RESOLUTION` of the total or deeper than `MAX_DEPTH` levels
are left out and counted in the subtitle.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.compare import Comparison
from traceview.analysis.layout.diffflame import BASE_ONLY, CAND_ONLY, DiffFlame, intensity
from traceview.analysis.significance import STATES
from traceview.exporters.diff import METRIC_WORDS, ms, percent
from traceview.exporters.flamesvg import PAD, RESOLUTION, WIDTH, Frames, Shell, write
from traceview.exporters.stacks import MAX_DEPTH
from traceview.model import printable

GREY = "rgb(214,214,210)"
STYLE = "#frames g.one rect{stroke:#000;stroke-width:1;stroke-dasharray:3 2}#legend{fill:#555}"
LEGEND = (
    "red: slower (new: full red), blue: faster (gone: full blue), paler: a smaller change, "
    "grey: within noise; dashed outline: on one side only"
)

NAME = "diff-svg"
SUFFIXES = (".svg",)
BINARY = False
SUBJECT = "runs"


@dataclass(frozen=True)
class Options:
    """`title`: the graph's heading (None: "Differential flame graph")."""

    title: str | None = None


def fill(state: int, intensity: float) -> str:
    """Red for slower and new, blue for faster and gone, paler for a smaller change; grey
    within noise."""
    word = STATES[state]
    if word == "noise":
        return GREY
    k = 0.25 + 0.75 * min(max(intensity, 0.0), 1.0)  # a change past the threshold shows
    if word in ("slower", "new"):
        return f"rgb(255,{round(235 - 175 * k)},{round(225 - 175 * k)})"
    return f"rgb({round(225 - 175 * k)},{round(235 - 135 * k)},255)"


def tip(c: Comparison, row: int) -> str:
    """What hovering a frame says: its state, both sides' inclusive and exclusive medians
    with the change, the calls, and the significance on the gated metric."""
    p = c.paths
    assert p is not None
    name = c.frames.label(int(p.frame[row]))
    word = p.state_name(row)
    if not p.on_base[row]:
        word += ", only in the candidate"
    elif not p.on_cand[row]:
        word += ", only in the baseline"
    parts = []
    for what, ch in (("inclusive", p.incl), ("exclusive", p.excl)):
        parts.append(
            f"{what} {ms(ch.base[row])} → {ms(ch.cand[row])} ms "
            f"(Δ {float(ch.delta[row]) / 1e6:+,.3f} ms, "
            f"{percent(float(ch.rel[row]), bool(p.on_base[row]))})"
        )
    parts.append(f"calls {p.calls.base[row]:g} → {p.calls.cand[row]:g}")
    metric = c.thresholds.metric
    ch = p.change(metric)
    if ch.known and math.isfinite(ch.t[row]):
        side = "beyond" if ch.significant[row] else "within"
        parts.append(
            f"t = {float(ch.t[row]):.2f} on {METRIC_WORDS[metric]} time, {side} the run-to-run "
            f"spread at {100 * c.thresholds.confidence:g} %"
        )
    else:
        parts.append("no run-to-run spread known")
    return f"{name} — {word}: " + "; ".join(parts)


def frames_data(c: Comparison) -> dict[str, Any]:
    """Both sides' layouts over one set of frames, as columns: `n` (index into `names`), `d`
    (level), `xc`/`wc` and `xb`/`wb` (ns on the candidate's and the baseline's scale; width 0:
    not on that side), `st` (state), `only` (1 baseline, 2 candidate), `tip` (the hover
    text), `row` (the path's row in `c.paths`), plus `total_c`, `total_b`, `dropped` and
    `deep`."""
    p = c.paths
    assert p is not None
    lay = {s: c.diff_flame(s, 1 / RESOLUTION) for s in ("candidate", "baseline")}
    rows = np.union1d(lay["candidate"].row, lay["baseline"].row)  # pre-order: path rows
    shallow = rows[p.depth[rows] < MAX_DEPTH]
    at = {s: _placed(f, shallow) for s, f in lay.items()}
    frames = p.frame[shallow]
    used, n = np.unique(frames, return_inverse=True)
    dropped = len(p) - len(rows)
    only = np.zeros(len(shallow), dtype=np.int64)
    only[~p.on_cand[shallow]] = BASE_ONLY
    only[~p.on_base[shallow]] = CAND_ONLY
    return {
        "names": [printable(c.frames.label(int(f))) for f in used.tolist()],
        "n": n.tolist(),
        "d": p.depth[shallow].tolist(),
        "xc": at["candidate"][0],
        "wc": at["candidate"][1],
        "xb": at["baseline"][0],
        "wb": at["baseline"][1],
        "st": p.state[shallow].tolist(),
        "only": only.tolist(),
        "tip": [printable(tip(c, r)) for r in shallow.tolist()],
        "row": shallow.tolist(),
        "total_c": round(lay["candidate"].total),
        "total_b": round(lay["baseline"].total),
        "dropped": int(dropped),
        "deep": int(len(rows) - len(shallow)),
        "side": "candidate",
    }


def _placed(f: DiffFlame, rows: npt.NDArray[np.int64]) -> tuple[list[float], list[float]]:
    """x and width (ns, 0.01 ns steps) of `rows` in layout `f` (0 where it has none)."""
    x, w = np.zeros(len(rows)), np.zeros(len(rows))
    if len(f.row):
        where = np.minimum(np.searchsorted(f.row, rows), len(f.row) - 1)
        found = f.row[where] == rows
        x[found], w[found] = f.x[where[found]], f.width[where[found]]
    return np.round(x, 2).tolist(), np.round(w, 2).tolist()


def export(c: Comparison, out: IO[Any], options: Options) -> None:
    """The differential flame graph as one SVG document."""
    paths = getattr(c, "paths", None)  # a comparison of methods alone has none
    if paths is None:
        raise ValueError("the runs were summarised without their call paths")
    data = frames_data(c)
    depth = max(data["d"], default=0) + 1
    scale = WIDTH / max(int(data["total_c"]), 1)
    metric = METRIC_WORDS[c.thresholds.metric]
    sub = (
        f"{len(c.baseline)} baseline vs {len(c.candidate)} candidate run(s), median {c.clock} "
        f"time; width: inclusive time of the side named at the left; colour: change of "
        f"{metric} time ({len(data['n'])} frames)"
    )
    if data["dropped"]:
        sub += f" ({data['dropped']} paths too narrow to draw left out)"
    shell = Shell(
        title=options.title or "Differential flame graph",
        subtitle=sub,
        script="diffflame.js",
        data_id="diff-data",
        background="#fbfbf8",
        deep=data["deep"],
        style=STYLE,
        attrs={"data-side": "candidate"},
        buttons=(("side", PAD + 110, "Widths: candidate"),),
        legend=LEGEND,
    )
    strength = intensity(paths, np.array(data["row"], dtype=np.int64), c.thresholds.metric)
    width = [wc * scale for wc in data["wc"]]
    frames = Frames(
        x=[xc * scale for xc in data["xc"]],
        width=width,
        level=[depth - 1 - d for d in data["d"]],
        name=[data["names"][n] for n in data["n"]],
        title=data["tip"],
        fill=[fill(int(s), float(k)) for s, k in zip(data["st"], strength, strict=True)],
        classes=[
            " ".join([*(["hidden"] if w < 0.1 else []), *(["one"] if one else [])])
            for w, one in zip(width, data["only"], strict=True)
        ],
    )
    write(out, shell, depth, frames, data)


__all__ = ["Options", "export", "fill", "frames_data", "tip"]
