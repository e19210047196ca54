"""The viewer's Starlette app: the static UI plus the JSON data API of docs/web-api.md.

Routes and encoding only: `create_app(session)` serves one analysed trace
(`analysis.Session`); each answer comes from `viewer/answers.py`, is cached per path and
normalised known parameters (viewer/cache.py) and passes through the defences of
viewer/guard.py. `POST /api/open` swaps in another trace. The CLI (`cli/view.py`) runs it under
uvicorn on 127.0.0.1."""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from traceview.analysis.query import Rename
from traceview.analysis.session import Session
from traceview.exporters.jsonshape import encode
from traceview.model import TraceError, printable
from traceview.viewer import answers as viewer
from traceview.viewer import params
from traceview.viewer.assets import shipped, static_dir
from traceview.viewer.cache import MAX_BYTES as MAX_ANSWER_BYTES
from traceview.viewer.cache import AnswerCache
from traceview.viewer.guard import Guard

MAX_UPLOAD = 2 << 30  # 2 GiB: a larger trace is opened with `traceview FILE`, not uploaded
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")
TILE = ("thread", "level", "tile")


def _error(status: int, message: str) -> Response:
    return Response(encode({"error": message}), status_code=status, media_type="application/json")


def _json(data: bytes) -> Response:
    return Response(data, media_type="application/json", headers={"Cache-Control": "no-store"})


class StaticAssets(StaticFiles):
    """`StaticFiles` over `static/` that answers 404 for the unit tests beside the modules."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        if not shipped(path):
            raise HTTPException(status_code=404)
        return await super().get_response(path, scope)


def static_files() -> StaticAssets:
    """The ASGI app serving the UI's assets at `/static` (this viewer's and the service's)."""
    return StaticAssets(directory=static_dir(), check_dir=False)


def session_from_file(path: Path, name: str) -> Session:
    """An uploaded trace (spooled to `path`) as a session whose `source` is the upload's name."""
    from traceview.readers import load

    trace = load(path)
    trace.source = name
    return Session(trace)


class _State:
    """The current session and its answer cache (both replaced by POST /api/open)."""

    def __init__(self, session: Session, answer_bytes: int = MAX_ANSWER_BYTES) -> None:
        self.answer_bytes = answer_bytes
        self.session = session
        self.answers = AnswerCache(answer_bytes)
        self.warm()

    def replace(self, session: Session) -> None:
        self.session, self.answers = session, AnswerCache(self.answer_bytes)
        self.warm()

    def warm(self) -> None:
        threading.Thread(target=self.session.warm, daemon=True).start()


def create_app(
    session: Session,
    allowed_hosts: Sequence[str] | None = LOCAL_HOSTS,
    max_upload: int = MAX_UPLOAD,
    guarded: bool = True,
    answer_bytes: int = MAX_ANSWER_BYTES,
    rename: Rename | None = None,
    reopen: Callable[[int], Session] | None = None,
) -> Starlette:
    """The ASGI app serving `session`. `allowed_hosts`: the Host names answered (DNS
    rebinding guard; None answers any, for tests only); `max_upload`: bytes of POST /api/open;
    `guarded=False` leaves out viewer/guard.py (for an app mounted inside one that has it, as the
    service's viewers are); `answer_bytes`: the answer cache's budget; `rename`: the
    deobfuscation every answer's names get (also for uploaded traces); `reopen(i)`: the
    session of process `i` of the same ANR report (POST /api/process), None when it cannot
    be read again."""
    state = _State(session, answer_bytes)

    def answer(
        request: Request, names: tuple[str, ...], build: Callable[[Session, dict[str, str]], Any]
    ) -> Response:
        s, cache = state.session, state.answers
        try:
            p = params.known(request.query_params, names)
            # the known parameters, in the route's order: junk parameters never reach the key
            key = (request.url.path, *p.items())
            with s.gate.serving():  # the warm-up waits meanwhile (analysis/warmup.py)
                return _json(cache.get(key, lambda: encode(build(s, p))))
        except (ValueError, KeyError, IndexError, TypeError, OverflowError) as exc:
            return _error(400, printable(str(exc).strip("'\"") or type(exc).__name__))

    def tile(p: dict[str, str]) -> tuple[int, int, int]:
        return int(p["thread"]), int(p["level"]), int(p["tile"])

    def index(request: Request) -> Response:
        page = static_dir() / "index.html"
        if page.is_file():
            return FileResponse(page, headers={"Cache-Control": "no-store"})
        return HTMLResponse("<!doctype html><title>traceview</title><p>The UI is not installed.")

    def api_trace(request: Request) -> Response:
        return answer(request, (), lambda s, p: viewer.trace_answer(s))

    def api_methods(request: Request) -> Response:
        return answer(request, (), lambda s, p: viewer.methods_answer(s, s.query(rename=rename)))

    def api_timeline(request: Request) -> Response:
        return answer(request, TILE, lambda s, p: viewer.timeline_answer(s, *tile(p)))

    def api_highlight(request: Request) -> Response:
        method = int(request.path_params["method"])
        return answer(request, TILE, lambda s, p: viewer.highlight_answer(s, method, *tile(p)))

    def api_call(request: Request) -> Response:
        row = int(request.path_params["row"])
        return answer(request, (), lambda s, p: viewer.call_answer(s, row))

    def api_profile(request: Request) -> Response:
        return answer(
            request,
            params.SELECTION,
            lambda s, p: viewer.profile_answer(s, params.query(s, p, rename)),
        )

    def api_relations(request: Request) -> Response:
        method = int(request.path_params["method"])
        return answer(
            request,
            params.SELECTION,
            lambda s, p: viewer.relations_answer(s, method, params.query(s, p, rename)),
        )

    def api_flame(request: Request) -> Response:
        return answer(
            request,
            (*params.SELECTION, "kind"),
            lambda s, p: viewer.flame_answer(
                s, p.get("kind") or "graph", params.query(s, p, rename)
            ),
        )

    def api_anr(request: Request) -> Response:
        return answer(request, (), lambda s, p: viewer.anr_answer(s, s.query(rename=rename)))

    async def api_process(request: Request) -> Response:
        """Read another process's dump of the same ANR report (`pick`: its index)."""
        if reopen is None:
            return _error(400, "this viewer cannot switch processes (open the report again)")
        try:
            pick = int(request.query_params.get("pick", ""))
            count = len(state.session.trace.header.processes)
            if not 0 <= pick < count:
                raise ValueError(f"pick must be 0 to {count - 1}")
            new = await run_in_threadpool(reopen, pick)
        except (ValueError, TraceError) as exc:
            return _error(400, printable(str(exc).splitlines()[0] if str(exc) else "bad pick"))
        state.replace(new)
        return _json(encode(viewer.trace_answer(new)))

    def api_frames(request: Request) -> Response:
        return answer(
            request,
            ("budget_ms",),
            lambda s, p: viewer.frames_answer(s, float(p.get("budget_ms") or 16)),
        )

    async def api_open(request: Request) -> Response:
        name = printable(unquote(request.headers.get("x-filename", "")))[:200] or "uploaded.trace"
        # the body goes to disk as it streams (never whole in memory) and is read from there
        # like any file: bounded by the reader's max_size, zero runs cut, verdicts given
        with tempfile.TemporaryDirectory(prefix="traceview-open-") as folder:
            path = Path(folder) / "upload.trace"
            with path.open("wb") as f:
                async for chunk in request.stream():
                    f.write(chunk)
            try:
                new = await run_in_threadpool(session_from_file, path, name)
            except TraceError as exc:
                line = str(exc).splitlines()[0] if str(exc) else "bad trace"
                return _error(400, printable(line.replace(str(path), name)))
            except (ValueError, IndexError, KeyError) as exc:
                return _error(400, f"{name}: {printable(str(exc))}")
            except MemoryError:
                return _error(413, f"{name}: too large to analyse in memory")
        state.replace(new)
        return _json(encode(viewer.trace_answer(new)))

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
        Route("/api/anr", api_anr),
        Route("/api/process", api_process, methods=["POST"]),
        Mount("/static", static_files(), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.viewer = state
    if guarded:
        app.add_middleware(Guard, hosts=allowed_hosts, max_body=max_upload)
    return app
