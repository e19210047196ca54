"""The compare report: `traceview report BASE... --vs NEW... -o compare.html`, the viewer in
compare mode as one self-contained HTML file (file://, offline).

It holds what the single-trace report holds for each side's first trace (viewer/report.py
`precompute`; the candidate's requests carry `side=cand`), both /api/trace answers with the
sides' run names, and the compare answers the compare views ask for first: /api/compare on
each clock both sides have, for both metrics, and on each the differential flame graph with
both widths and the changed paths; and /api/first of the most changed methods on both sides
(the timelines' alignment). Each answer goes in with its request; the page indexes them by
`keyOf` (static/lib/api.js). Views that need another computation show a note.
"""

from __future__ import annotations

from typing import IO, Any

from traceview.viewer import compare_answers as answers
from traceview.viewer import page as htmlpage
from traceview.viewer.comparing import Comparisons, Sides
from traceview.viewer.page import static_dir
from traceview.viewer.report import BUDGET, Entry, Params, precompute

FIRST_METHODS = 40  # /api/first for this many of the most changed methods per side


def precompute_compare(sides: Sides, budget: int = BUDGET) -> list[Entry]:
    """The answers the compare report holds, each with the request the UI makes for it;
    `budget`: bytes of timeline tiles, split between the two sides."""
    out: list[Entry] = []
    for side in ("base", "cand"):
        session = sides.first(side)
        for path, params, value in precompute(session, budget // 2, sides.renaming(side)):
            if path == "/api/trace":
                value["compare"] = answers.sides_json(sides, side)
            out.append((path, {**params, "side": "cand"} if side == "cand" else params, value))
    cs = Comparisons(sides)
    clocks = [c for c in sides.base[0].clocks if all(c in s.clocks for s in sides.cand)]
    firsts: dict[str, set[int]] = {"base": set(), "cand": set()}
    for clock in clocks:
        for metric in ("excl", "incl"):
            words: Params = {"clock": clock, "metric": metric}
            c = cs.get({"clock": clock, "metric": metric})
            table = answers.compare_answer(cs, c)
            out.append(("/api/compare", words, table))
            for side, key in (("base", "base_method"), ("cand", "cand_method")):
                rows = table["methods"][key][:FIRST_METHODS]
                firsts[side].update(r for r in rows if r >= 0)
            for width in ("candidate", "baseline"):
                flame = answers.flame_answer(cs, c, width)
                out.append(("/api/compare/flame", {**words, "width": width}, flame))
            out.append(("/api/compare/paths", words, answers.paths_answer(c)))
    for side, rows in firsts.items():
        session = sides.first(side)
        extra: dict[str, Any] = {"side": "cand"} if side == "cand" else {}
        for m in sorted(rows):
            out.append((f"/api/first/{m}", extra, answers.first_answer(session, m)))
    return out


def export(sides: Sides, out: IO[Any], budget: int = BUDGET) -> None:
    """Write the compare report page."""
    out.write(htmlpage.render(static_dir(), precompute_compare(sides, budget)))


__all__ = ["FIRST_METHODS", "export", "precompute_compare"]
