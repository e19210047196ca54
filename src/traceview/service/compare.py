"""The service's comparisons: `/compare/<base>/<cand>/`, the viewer in compare mode over
stored traces, where each side is a trace id or a label set (`build:100` or
`app:x,build:100`: the most recent `MAX_RUNS` traces carrying every label, N vs N runs);
`/compare?base=…&cand=…` redirects there (a shareable URL); `POST /t/<id>/api/compare/open`
stores an uploaded trace and answers the compare URL of the two (the "Compare with…" action of
a trace's page).

A comparison's viewer (viewer/app.py with `sides`) is cached among the open traces by the ids
it compares; it changes nothing: its POST routes answer 405.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.types import Receive, Scope, Send

from traceview.analysis.session import Session
from traceview.service.config import ANSWER_BYTES
from traceview.service.sessions import Entry, SessionCache, estimate
from traceview.service.store import Store, check_labels, valid_id
from traceview.viewer.app import create_app
from traceview.viewer.comparing import Sides

MAX_RUNS = 10  # traces per side of a comparison by labels

Side = str | dict[str, str]  # a trace id, or labels


def parse_side(spec: str) -> Side:
    """A side as written in a URL: a trace id, or `key:value,...` labels (ValueError)."""
    if valid_id(spec):
        return spec
    labels: dict[str, str] = {}
    for part in spec.split(","):
        key, sep, value = part.partition(":")
        if not sep:
            raise ValueError("a side is a trace id or labels such as build:100,app:com.example")
        labels[key] = value
    return check_labels(labels)


def compare_url(base: str, cand: str) -> str:
    """The comparison's page (each side quoted as one path segment)."""
    return f"/compare/{quote(base, safe=':,')}/{quote(cand, safe=':,')}/"


def compare_routes(
    store: Store,
    sessions: SessionCache,
    run: Callable[[str, Callable[[], Any]], Awaitable[Any]],
    open_session: Callable[[str], Session],
    upload: Callable[[Request], Awaitable[Response]],
    error: Callable[[int, str], Response],
    page: Callable[[], Response],
) -> list[Route | Mount]:
    """The routes; `run(pool, fn)` runs blocking work off the event loop, `open_session(id)`
    a stored trace's (cached) session, `upload(request)` the service's upload answer."""

    def ids_of(side: Side) -> list[str]:
        if isinstance(side, str):
            return [side] if store.get(side) is not None else []
        return store.find(side, MAX_RUNS)

    def open_compare(base: list[str], cand: list[str]) -> Entry:
        b = tuple(open_session(i) for i in base)
        c = tuple(open_session(i) for i in cand)
        app = create_app(
            b[0], allowed_hosts=None, guarded=False, answer_bytes=ANSWER_BYTES, sides=Sides(b, c)
        )
        state = app.state.viewer
        entry = Entry(b[0], app, lambda: int(state.answers.size + state.cand_answers.size))
        entry.measure = lambda: _measure(entry, (*b, *c))  # type: ignore[method-assign]
        return entry

    async def entry_of(base_spec: str, cand_spec: str) -> Entry | Response:
        try:
            base, cand = parse_side(base_spec), parse_side(cand_spec)
        except ValueError as exc:
            return error(400, str(exc))
        b, c = await run("store", lambda: (ids_of(base), ids_of(cand)))
        if not b or not c:
            return error(404, f"no stored trace for the {'baseline' if not b else 'candidate'}")
        key = "compare:" + ",".join(b) + "/" + ",".join(c)
        hit = sessions.peek(key)
        if hit is not None:
            return hit
        try:
            entry: Entry = await run("load", lambda: sessions.get(key, lambda: open_compare(b, c)))
        except MemoryError:
            return error(503, "not enough memory to compare these traces now")
        except (OSError, ValueError) as exc:
            return error(503, f"cannot compare these traces: {str(exc).splitlines()[0]}")
        return entry

    async def shortcut(request: Request) -> Response:
        base = request.query_params.get("base", "")
        cand = request.query_params.get("cand", "")
        try:
            parse_side(base), parse_side(cand)
        except ValueError as exc:
            return error(400, str(exc))
        return RedirectResponse(compare_url(base, cand), status_code=303)

    async def slash(request: Request) -> Response:
        p = request.path_params
        return RedirectResponse(compare_url(p["base"], p["cand"]), status_code=308)

    async def compare_page(request: Request) -> Response:
        entry = await entry_of(request.path_params["base"], request.path_params["cand"])
        return entry if isinstance(entry, Response) else page()

    async def viewer(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] not in ("GET", "HEAD"):
            await error(405, "a shared comparison cannot be changed: compare others anew")(
                scope, receive, send
            )
            return
        found = await entry_of(scope["path_params"]["base"], scope["path_params"]["cand"])
        if isinstance(found, Response):
            await found(scope, receive, send)
            return
        await found.app(scope, receive, send)

    async def compare_with(request: Request) -> Response:
        """Store the uploaded trace; answer where the two compare."""
        tid = request.path_params["tid"]
        if not valid_id(tid) or await run("store", lambda: store.get(tid)) is None:
            return error(404, "no such trace")
        stored = await upload(request)
        if stored.status_code not in (200, 201):
            return stored
        other = json.loads(bytes(stored.body))["id"]
        return Response(
            json.dumps({"redirect": compare_url(tid, other), "id": other}),
            media_type="application/json",
        )

    return [
        Route("/compare", shortcut),
        Route("/compare/{base}/{cand}", slash),
        Route("/compare/{base}/{cand}/", compare_page),
        Route("/t/{tid}/api/compare/open", compare_with, methods=["POST"]),
        Mount("/compare/{base}/{cand}", app=viewer),
    ]


def _measure(entry: Entry, sessions: tuple[Session, ...]) -> int:
    """A comparison's bytes: every session it holds and its answers."""
    entry.size = estimate(sessions) + entry.answers()
    return entry.size


__all__ = ["MAX_RUNS", "compare_routes", "compare_url", "parse_side"]
