"""The service's dataset (docs/dataset.md): each stored upload is added to `DATA/dataset` with
its labels (app, build, branch, device), and a method's history across builds is read back
with SQL over it — `/methods?app=A&q=TEXT` finds methods, `/methods/<method_key>?app=A`
shows the median exclusive and inclusive time per build as a chart with every run as a point
(an SVG drawn here: no script, no CDN), `/api/methods/<method_key>` the same numbers as JSON.

The runs are kept as stored by service/feed.py (labels, mapping, deletions; after a stop,
on the next start); these pages wait for its work at start, answering 503 with Retry-After
when it takes longer, so they never show what a stop left behind.
Names from traces are escaped everywhere.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from traceview.dataset.history import Point, method_points
from traceview.service.feed import Feed

FOUND = 50  # methods a search lists
Run = Callable[[str, Callable[[], Any]], Awaitable[Any]]


def history_routes(feed: Feed, run: Run, error: Callable[[int, str], Response]) -> list[Route]:
    """The method search, the method page and its JSON."""

    def busy() -> Response:
        response = error(503, "the dataset is being brought up to date; try again shortly")
        response.headers["Retry-After"] = "5"
        return response

    async def search(request: Request) -> Response:
        if not await feed.settled():
            return busy()
        app = request.query_params.get("app", "unknown")
        text = request.query_params.get("q", "")[:200]
        rows = await run("store", lambda: _find(feed.root, app, text))
        items = "".join(
            f"<li><a href='/methods/{key}?app={escape(quote(app), quote=True)}'>"
            f"{escape(label)}</a> "
            f"<small>{n} runs</small></li>"
            for key, label, n in rows
        )
        return _html(
            f"<h1>Methods of {escape(app)}</h1><form action='/methods'>"
            f"<input type='hidden' name='app' value='{escape(app, quote=True)}'>"
            f"<input name='q' value='{escape(text, quote=True)}' placeholder='class or method'>"
            f"<button>Find</button></form><ul>{items or '<li>none</li>'}</ul>"
        )

    async def data(request: Request) -> tuple[dict[str, Any], str] | Response:
        try:
            key = int(request.path_params["key"])
        except ValueError:
            return error(404, "no such method")
        app = request.query_params.get("app", "unknown")
        clock = request.query_params.get("clock", "wall")
        if clock not in ("cpu", "wall"):
            return error(400, "clock: cpu or wall")
        if not await feed.settled():
            return busy()
        answer = await run("store", lambda: method_history(feed.root, key, app, clock))
        if answer is None:
            return error(404, "no such method in this app's runs")
        return answer, clock

    async def as_json(request: Request) -> Response:
        got = await data(request)
        if isinstance(got, Response):
            return got
        return Response(json.dumps(got[0]), media_type="application/json")

    async def page(request: Request) -> Response:
        got = await data(request)
        if isinstance(got, Response):
            return got
        answer, clock = got
        title = escape(answer["method"]["label"])
        rows = "".join(
            f"<tr><td>{escape(b['build'])}</td><td>{len(b['runs'])}</td>"
            f"<td>{b['median_excl_ns'] / 1e6:.3f}</td><td>{b['median_incl_ns'] / 1e6:.3f}</td></tr>"
            for b in answer["builds"]
        )
        return _html(
            f"<h1>{title}</h1><p>{escape(answer['app'])}, {clock} clock: the median per build "
            "(lines) and every run (points).</p>"
            f"{chart(answer['builds'])}<table><tr><th>build</th><th>runs</th>"
            f"<th>median exclusive ms</th><th>median inclusive ms</th></tr>{rows}</table>"
        )

    return [
        Route("/methods", search),
        Route("/methods/{key}", page),
        Route("/api/methods/{key}", as_json),
    ]


def method_history(root: Path, key: int, app: str, clock: str) -> dict[str, Any] | None:
    """The method's name and, per build (in build order), its runs and medians."""
    from traceview.dataset.read import sql

    if not (root / "traces").is_dir():
        return None
    named = sql(
        root,
        "SELECT label, class_name, name, signature FROM methods WHERE method_key = ? LIMIT 1",
        [key],
    ).rows
    if not named:
        return None
    points = method_points(root, key, app, clock)
    builds: dict[str, list[Point]] = {}
    for p in points:
        builds.setdefault(p.build, []).append(p)
    out = []
    for build in sorted(builds, key=lambda b: _build_order(b, builds[b])):
        runs = builds[build]
        out.append(
            {
                "build": build,
                "median_excl_ns": float(np.median([r.excl_ns for r in runs])),
                "median_incl_ns": float(np.median([r.incl_ns for r in runs])),
                "runs": [
                    {"trace_id": r.trace_id, "name": r.name, "date": r.date,
                     "excl_ns": r.excl_ns, "incl_ns": r.incl_ns}
                    for r in runs
                ],
            }
        )  # fmt: skip
    label, cls, name, sig = named[0]
    return {
        "method": {"key": key, "label": label, "class_name": cls, "name": name, "signature": sig},
        "app": app,
        "clock": clock,
        "builds": out,
    }


def chart(builds: list[dict[str, Any]], width: int = 720, height: int = 260) -> str:
    """An SVG of the medians per build (two lines) and each run (points), ms on the y axis."""
    if not builds:
        return "<p>no runs</p>"
    top = max(max(r[k] for r in b["runs"] for k in ("excl_ns", "incl_ns")) for b in builds) or 1
    left, bottom, pad = 60, height - 40, 20
    step = (width - left - pad) / max(len(builds) - 1, 1)

    def x(i: int) -> float:
        return left + i * step if len(builds) > 1 else left + (width - left - pad) / 2

    def y(ns: float) -> float:
        return bottom - (bottom - pad) * ns / top

    parts = [
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
        f"viewBox='0 0 {width} {height}' role='img' aria-label='time per build'>",
        f"<line x1='{left}' y1='{bottom}' x2='{width - pad}' y2='{bottom}' stroke='#888'/>",
        f"<line x1='{left}' y1='{pad}' x2='{left}' y2='{bottom}' stroke='#888'/>",
        f"<text x='4' y='{pad + 4}' font-size='11'>{top / 1e6:.3g} ms</text>",
        f"<text x='4' y='{bottom}' font-size='11'>0</text>",
    ]
    for metric, colour in (("excl", "#d6604d"), ("incl", "#4393c3")):
        line = " ".join(
            f"{x(i):.1f},{y(b[f'median_{metric}_ns']):.1f}" for i, b in enumerate(builds)
        )
        parts.append(f"<polyline points='{line}' fill='none' stroke='{colour}' stroke-width='2'/>")
        for i, b in enumerate(builds):
            for r in b["runs"]:
                tip = escape(
                    f"{r['name']} ({b['build']}): {r[f'{metric}_ns'] / 1e6:.3f} ms", quote=True
                )
                parts.append(
                    f"<circle cx='{x(i):.1f}' cy='{y(r[f'{metric}_ns']):.1f}' r='3' "
                    f"fill='{colour}' fill-opacity='0.5'><title>{tip}</title></circle>"
                )
    for i, b in enumerate(builds):
        parts.append(
            f"<text x='{x(i):.1f}' y='{bottom + 16}' font-size='11' text-anchor='middle'>"
            f"{escape(b['build'])}</text>"
        )
    parts.append(
        f"<text x='{width - pad}' y='{pad}' font-size='11' text-anchor='end' fill='#d6604d'>"
        "exclusive</text>"
        f"<text x='{width - pad}' y='{pad + 14}' font-size='11' text-anchor='end' "
        "fill='#4393c3'>inclusive</text></svg>"
    )
    return "".join(parts)


def _find(root: Path, app: str, text: str) -> list[tuple[int, str, int]]:
    from traceview.dataset.read import sql

    if not (root / "traces").is_dir():
        return []
    rows = sql(
        root,
        "SELECT m.method_key, min(m.label), count(DISTINCT m.trace_id) AS n FROM methods m "
        "JOIN traces t ON t.trace_id = m.trace_id WHERE t.app = ? AND "
        "contains(lower(m.label), lower(?)) GROUP BY m.method_key ORDER BY n DESC, 2 LIMIT ?",
        [app, text, FOUND],
    ).rows
    return [(int(k), str(label), int(n)) for k, label, n in rows]


def _build_order(build: str, runs: list[Point]) -> tuple[int, float, str, str]:
    """Numbers in numeric order first, then the others by their first run's date."""
    if build.isdigit():
        return (0, float(build), "", build)
    return (1, 0.0, min(r.date for r in runs), build)


def _html(body: str) -> Response:
    page = (
        "<!doctype html><html><head><meta charset='utf-8'><title>traceview: methods</title>"
        "</head><body style='font-family:sans-serif;margin:2em'>"
        f"<p><a href='/'>traceview</a></p>{body}</body></html>"
    )
    return HTMLResponse(page, headers={"Cache-Control": "no-store"})


__all__ = ["chart", "history_routes", "method_history"]
