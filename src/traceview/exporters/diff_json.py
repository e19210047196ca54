"""The `diff-json` format: `traceview diff --json`, every method and thread of a comparison of
runs (`analysis.diff.DiffView`) with its changes, spreads and verdicts (docs/json.md, "diff")."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import IO, Any

from traceview.analysis.compare import Comparison
from traceview.analysis.diff import DiffView
from traceview.analysis.significance import Change
from traceview.exporters.diff import counts
from traceview.exporters.diffpaths import path_json, paths_of
from traceview.exporters.jsonshape import dumps, us1
from traceview.model import visible

NAME = "diff-json"
SUFFIXES: tuple[str, ...] = ()
BINARY = False
SUBJECT = "runs"


@dataclass(frozen=True)
class Options:
    """`diff-json` takes no options: it lists every method."""


def _num(x: float, scale: float = 1000.0) -> float | None:
    """ns -> µs (rounded to the ns) for JSON; NaN and inf -> null."""
    if not math.isfinite(x):
        return None
    return us1(x) if scale == 1000.0 else round(x / scale, 3)


def change_json(ch: Change, i: int, unit_us: bool = True) -> dict[str, Any]:
    """One `Change` row as JSON (`*_us` for times, plain numbers for counts)."""
    scale = 1000.0 if unit_us else 1.0
    sfx = "_us" if unit_us else ""
    rel = float(ch.rel[i])
    return {
        f"baseline{sfx}": _num(float(ch.base[i]), scale),
        f"candidate{sfx}": _num(float(ch.cand[i]), scale),
        f"change{sfx}": _num(float(ch.delta[i]), scale),
        "change_percent": round(100 * rel, 3) if math.isfinite(rel) else None,
        f"baseline_spread{sfx}": _num(float(ch.base_spread[i]), scale),
        f"candidate_spread{sfx}": _num(float(ch.cand_spread[i]), scale),
        "t": round(float(ch.t[i]), 3) if ch.known and math.isfinite(ch.t[i]) else None,
        "significant": bool(ch.significant[i]) if ch.known else None,
    }


def diff_json(dv: DiffView) -> dict[str, Any]:
    """The whole comparison as one JSON-ready dict (docs/json.md, "diff")."""
    m, th = dv.methods, dv.thresholds
    methods = []
    for i in dv.order():
        methods.append(
            {
                "class": visible(m.class_name[i]),
                "name": visible(m.name[i]),
                "signature": visible(m.signature[i]),
                "status": m.status[i],
                "gated": bool(m.gated[i]),
                "on_baseline": bool(m.on_base[i]),
                "on_candidate": bool(m.on_cand[i]),
                "incl": change_json(m.incl, i),
                "excl": change_json(m.excl, i),
                "state": m.state_name(i),
                "calls": change_json(m.calls, i, unit_us=False),
            }
        )
    t = dv.threads
    threads = [
        {
            "name": visible(t.name[i]),
            "on_baseline": bool(t.on_base[i]),
            "on_candidate": bool(t.on_cand[i]),
            "total": change_json(t.total, i),
            "calls": change_json(t.calls, i, unit_us=False),
        }
        for i in range(len(t))
    ]
    c = counts(dv)
    extra: dict[str, Any] = {}
    paths = paths_of(dv)
    if isinstance(dv, Comparison) and paths is not None:
        rows, left_out = path_json(dv, paths, th.min_time_ns)
        extra = {"paths": rows, "paths_left_out": left_out}
    return {
        "clock": dv.clock,
        "baseline": [visible(s) for s in dv.baseline],
        "candidate": [visible(s) for s in dv.candidate],
        "thresholds": {
            "metric": th.metric,
            "fail_above_percent": round(100 * th.fail_above, 6),
            "min_time_us": th.min_time_ns / 1000,
            "confidence_percent": round(100 * th.confidence, 6),
            "methods": [visible(p) for p in th.methods],
        },
        "statistic": {
            "spread": "1.4826 * MAD",
            "test": "one-sided t on the change of medians (pooled robust spread), critical "
            "value: its quantile for normal noise with as many runs",
            "spread_known": dv.spread_known,
            "degrees_of_freedom": dv.dof,
            "critical_t": round(dv.critical, 6) if dv.critical is not None else None,
        },
        "counts": {s: c.get(s, 0) for s in sorted(c)},
        "regressions": [
            {
                "class": visible(m.class_name[i]),
                "name": visible(m.name[i]),
                "signature": visible(m.signature[i]),
            }
            for i in dv.regressions
        ],
        "methods": methods,
        "threads": threads,
        **extra,
        "notes": [visible(n) for n in dv.notes],
    }


def export(dv: DiffView, out: IO[Any], options: Options) -> None:
    """`diff --json`: every method and thread compared (docs/json.md)."""
    out.write(dumps(diff_json(dv)) + "\n")
