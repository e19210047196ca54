"""The viewer's Starlette app: the static UI plus the JSON data API of docs/web-api.md.

`create_app(session)` serves one loaded trace (`web/session.py`); answers come from
`web/answers.py` and are cached per request key. `POST /api/open` swaps in another trace.
The CLI (`cli/view.py`) runs it under uvicorn on 127.0.0.1.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from traceview.model import TraceError
from traceview.web import answers
from traceview.web.payload import encode
from traceview.web.session import Query, Session

MAX_UPLOAD = 4 << 30  # 4 GiB: a trace larger than that is not opened through the browser


def static_dir() -> Path:
    """The folder of the UI's static files (package data)."""
    return Path(str(resources.files("traceview") / "web" / "static"))


def request_key(path: str, params: dict[str, str]) -> str:
    """The cache/report key: path, then `?name=value&...` sorted by name (docs/web-api.md)."""
    items = sorted((k, v) for k, v in params.items() if v != "")
    return path + ("?" + "&".join(f"{k}={v}" for k, v in items) if items else "")


def _error(status: int, message: str) -> Response:
    return Response(encode({"error": message}), status_code=status, media_type="application/json")


def _json(data: bytes) -> Response:
    return Response(data, media_type="application/json", headers={"Cache-Control": "no-store"})


class _State:
    """The current session (replaced by POST /api/open) and the background indexer."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.start_background()

    def start_background(self) -> None:
        threading.Thread(target=self.session.prepare_timeline, daemon=True).start()


def create_app(session: Session, allowed_hosts: Sequence[str] | None = None) -> Starlette:
    """The ASGI app serving `session`; `allowed_hosts` guards against DNS rebinding."""
    state = _State(session)

    def answer(request: Request, build: Callable[[Session, dict[str, str]], Any]) -> Response:
        s = state.session
        params = dict(request.query_params)
        key = request_key(request.url.path, params)
        try:
            return _json(s.cached(key, lambda: encode(build(s, params))))
        except (ValueError, KeyError, IndexError, TypeError, OverflowError) as exc:
            return _error(400, str(exc).strip("'\"") or type(exc).__name__)

    def q(s: Session, p: dict[str, str]) -> Query:
        return s.query(p.get("clock"), p.get("threads"), p.get("t0"), p.get("t1"), p.get("mycode"))

    def tile_args(p: dict[str, str]) -> tuple[int, int, int]:
        return int(p["thread"]), int(p["level"]), int(p["tile"])

    def index(request: Request) -> Response:
        page = static_dir() / "index.html"
        if page.is_file():
            return FileResponse(page, headers={"Cache-Control": "no-store"})
        return HTMLResponse("<!doctype html><title>traceview</title><p>The UI is not installed.")

    def api_trace(request: Request) -> Response:
        return answer(request, lambda s, p: answers.trace_answer(s))

    def api_methods(request: Request) -> Response:
        return answer(request, lambda s, p: answers.methods_answer(s))

    def api_timeline(request: Request) -> Response:
        return answer(request, lambda s, p: answers.timeline_answer(s, *tile_args(p)))

    def api_highlight(request: Request) -> Response:
        method = int(request.path_params["method"])
        return answer(request, lambda s, p: answers.highlight_answer(s, method, *tile_args(p)))

    def api_call(request: Request) -> Response:
        row = int(request.path_params["row"])
        return answer(request, lambda s, p: answers.call_answer(s, row))

    def api_profile(request: Request) -> Response:
        return answer(request, lambda s, p: answers.profile_answer(s, q(s, p)))

    def api_relations(request: Request) -> Response:
        method = int(request.path_params["method"])
        return answer(request, lambda s, p: answers.relations_answer(s, method, q(s, p)))

    def api_flame(request: Request) -> Response:
        return answer(
            request, lambda s, p: answers.flame_answer(s, p.get("kind") or "graph", q(s, p))
        )

    def api_frames(request: Request) -> Response:
        return answer(
            request, lambda s, p: answers.frames_answer(s, float(p.get("budget_ms") or 16))
        )

    async def api_open(request: Request) -> Response:
        name = unquote(request.headers.get("x-filename", "")) or "uploaded.trace"
        size = int(request.headers.get("content-length") or 0)
        if size > MAX_UPLOAD:
            return _error(413, f"{name}: file too large to upload ({size} bytes)")
        body = await request.body()
        try:
            new = await run_in_threadpool(Session.from_bytes, body, name)
        except TraceError as exc:
            return _error(400, str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        except (ValueError, IndexError, KeyError) as exc:
            return _error(400, f"{name}: {exc}")
        state.session = new
        state.start_background()
        return _json(encode(answers.trace_answer(new)))

    routes = [
        Route("/", index),
        Route("/api/trace", api_trace),
        Route("/api/methods", api_methods),
        Route("/api/timeline", api_timeline),
        Route("/api/highlight/{method:int}", api_highlight),
        Route("/api/call/{row:int}", api_call),
        Route("/api/profile", api_profile),
        Route("/api/relations/{method:int}", api_relations),
        Route("/api/flame", api_flame),
        Route("/api/frames", api_frames),
        Route("/api/open", api_open, methods=["POST"]),
        Mount("/static", StaticFiles(directory=static_dir(), check_dir=False), name="static"),
    ]
    middleware = []
    if allowed_hosts:
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts)))
    app = Starlette(routes=routes, middleware=middleware)
    app.state.viewer = state
    return app
