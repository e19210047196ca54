"""The `diff-svg` format: a comparison of runs (`analysis.compare.Comparison`) as one
standalone, interactive differential flame graph (one SVG file, no network): `traceview diff
BASE... --vs NEW... -o diff.svg`.

The layout is the comparison's (`Comparison.diff_flame`, analysis/layout/diffflame.py), for
both sides: widths the candidate's median inclusive time (a button switches to the
baseline's), colours the change of each call path on the gated metric — red slower, blue
faster, deeper with the relative change, grey within noise — and a dashed outline on paths
of one side only. Every frame is drawn, so the file shows the graph where scripts do not run;
the inline script (`diffflame.js`) adds hover details (both sides, Δ, Δ %, significance: the
words are written here, in Python), click to zoom, search and the side switch. Frames
narrower than 1/`RESOLUTION` of the total or deeper than `MAX_DEPTH` levels are left out and
counted in the subtitle. Names are XML-escaped (control characters `\\xNN`) in the markup and
`\\u`-escaped (`<`, `>`, `&`) in the JSON the script reads.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from html import escape
from importlib.resources import files
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.compare import Comparison
from traceview.analysis.layout.diffflame import BASE_ONLY, CAND_ONLY, DiffFlame, intensity
from traceview.analysis.significance import STATES
from traceview.exporters.diff import METRIC_WORDS, ms, percent
from traceview.exporters.stacks import MAX_DEPTH
from traceview.model import printable

WIDTH = 1200  # px of the graph area
FRAME = 17  # px per level
TOP = 56  # px above the graph (title, buttons)
BOTTOM = 44  # px below (details line, legend)
PAD = 10
RESOLUTION = 12_000  # frames narrower than 1/12000 of the total (0.1 px) are left out
CHAR_PX = 7.0  # average width of a 12 px character
GREY = "rgb(214,214,210)"

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
    height = TOP + depth * FRAME + BOTTOM
    full = WIDTH + 2 * PAD
    total = max(int(data["total_c"]), 1)
    scale = WIDTH / total
    title = options.title or "Differential flame graph"
    metric = METRIC_WORDS[c.thresholds.metric]
    sub = (
        f"{len(c.baseline)} baseline vs {len(c.candidate)} candidate run(s), median {c.clock} "
        f"time; width: inclusive time of the side named at the left; colour: change of "
        f"{metric} time ({len(data['n'])} frames)"
    )
    if data["dropped"]:
        sub += f" ({data['dropped']} paths too narrow to draw left out)"
    if data["deep"]:
        sub += f" ({data['deep']} frames deeper than {MAX_DEPTH} left out)"
    script = files("traceview.exporters").joinpath("diffflame.js").read_text(encoding="utf-8")
    w = out.write
    w('<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n')
    w(
        f'<svg version="1.1" xmlns="http://www.w3.org/2000/svg" width="{full}" '
        f'height="{height}" viewBox="0 0 {full} {height}" data-width="{WIDTH}" '
        f'data-pad="{PAD}" data-char="{CHAR_PX}" data-side="candidate">\n'
    )
    w(
        "<style>text{font-family:Verdana,sans-serif;font-size:12px;fill:#000}"
        "#frames text{pointer-events:none}#frames g{cursor:pointer}"
        "#frames g:hover rect{stroke:#000;stroke-width:0.5}"
        "#frames g.one rect{stroke:#000;stroke-width:1;stroke-dasharray:3 2}"
        ".hidden{display:none}.faded rect{opacity:0.55}"
        ".button{cursor:pointer;fill:#204080}.button:hover{text-decoration:underline}"
        "#title{font-size:17px}#subtitle,#legend{fill:#555}</style>\n"
    )
    w(f'<rect x="0" y="0" width="{full}" height="{height}" fill="#fbfbf8"/>\n')
    w(f'<text id="title" x="{full / 2}" y="22" text-anchor="middle">{_xml(title)}</text>\n')
    w(f'<text id="subtitle" x="{full / 2}" y="40" text-anchor="middle">{_xml(sub)}</text>\n')
    w(f'<text id="reset" class="button hidden" x="{PAD}" y="22">Reset zoom</text>\n')
    w(f'<text id="side" class="button" x="{PAD + 110}" y="22">Widths: candidate</text>\n')
    w(f'<text id="search" class="button" x="{full - PAD}" y="22" text-anchor="end">Search</text>\n')
    w(
        f'<text id="clear" class="button hidden" x="{full - PAD - 60}" y="22" '
        'text-anchor="end">Clear</text>\n'
    )
    w(f'<text id="details" x="{PAD}" y="{height - 25}"> </text>\n')
    w(f'<text id="matched" x="{full - PAD}" y="{height - 8}" text-anchor="end"></text>\n')
    legend = (
        "red: slower (new: full red), blue: faster (gone: full blue), paler: a smaller change, "
        "grey: within noise; dashed outline: on one side only"
    )
    w(f'<text id="legend" x="{PAD}" y="{height - 8}">{_xml(legend)}</text>\n')
    w('<g id="frames">\n')
    names, chunk = data["names"], []
    strength = intensity(paths, np.array(data["row"], dtype=np.int64), c.thresholds.metric)
    for k in range(len(data["n"])):
        wc = data["wc"][k] * scale
        classes = [*(["hidden"] if wc < 0.1 else []), *(["one"] if data["only"][k] else [])]
        cls = f' class="{" ".join(classes)}"' if classes else ""
        x = PAD + data["xc"][k] * scale
        y = TOP + (depth - 1 - data["d"][k]) * FRAME
        name = names[data["n"][k]]
        colour = fill(int(data["st"][k]), float(strength[k]))
        chunk.append(
            f'<g data-i="{k}"{cls}><title>{_xml(data["tip"][k])}</title>'
            f'<rect x="{x:.2f}" y="{y}" width="{wc:.2f}" height="{FRAME - 1}" '
            f'fill="{colour}" rx="2"/><text x="{x + 3:.2f}" y="{y + FRAME - 5}">'
            f"{_xml(_fit(name, wc))}</text></g>\n"
        )
        if len(chunk) >= 4096:
            w("".join(chunk))
            chunk.clear()
    w("".join(chunk))
    w("</g>\n")
    w(f'<script type="application/json" id="diff-data">{_json_for_xml(data)}</script>\n')
    w(f"<script><![CDATA[\n{script.replace(']]>', ']]]]><![CDATA[>')}\n]]></script>\n")
    w("</svg>\n")


def _xml(text: str) -> str:
    """Text safe in XML character data and attributes (control characters as \\xNN)."""
    return escape(printable(text), quote=True)


def _json_for_xml(obj: object) -> str:
    """JSON that no name can end the script element with or inject markup into."""
    text = json.dumps(obj, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _fit(name: str, width: float) -> str:
    """The label that fits `width` px (cut with `..`), or "" when not even 3 characters do."""
    chars = int((width - 6) / CHAR_PX)
    if chars < 3:
        return ""
    return name if len(name) <= chars else name[: chars - 2] + ".."


__all__ = ["Options", "export", "fill", "frames_data", "tip"]
