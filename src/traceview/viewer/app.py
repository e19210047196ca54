"""The viewer's Starlette app: the static UI plus the JSON data API of docs/web-api.md.

Routes and encoding only: `create_app(session)` serves one analysed trace
(`analysis.Session`), or with `sides` a comparison (viewer/comparing.py: the single-trace
answers of either side's first trace with `side=base|cand`, the compare answers of
viewer/compare_routes.py); each answer comes from `viewer/answers.py`, is cached per path and
normalised known parameters (viewer/cache.py) and passes through the defences of
viewer/guard.py. `POST /api/open` swaps in another trace, `POST /api/compare/open` loads one
to compare with. The CLI (`cli/view.py`, `cli/compare.py`) runs it under uvicorn on
127.0.0.1."""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from traceview.analysis.query import Rename
from traceview.analysis.session import Session
from traceview.exporters.jsonshape import encode
from traceview.model import TraceError, printable
from traceview.viewer import answers as viewer
from traceview.viewer import params
from traceview.viewer.cache import MAX_BYTES as MAX_ANSWER_BYTES
from traceview.viewer.cache import AnswerCache
from traceview.viewer.compare_answers import sides_json
from traceview.viewer.compare_routes import Build, compare_routes
from traceview.viewer.comparing import Comparisons, Sides
from traceview.viewer.detail_routes import detail_routes
from traceview.viewer.guard import Guard, Timeouts
from traceview.viewer.served import installed

MAX_UPLOAD = 2 << 30  # 2 GiB: a larger trace is opened with `traceview FILE`, not uploaded
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")
TILE = ("thread", "level", "tile")


def _error(status: int, message: str) -> Response:
    return Response(encode({"error": message}), status_code=status, media_type="application/json")


def _json(data: bytes) -> Response:
    return Response(data, media_type="application/json", headers={"Cache-Control": "no-store"})


def session_from_file(path: Path, name: str) -> Session:
    """An uploaded trace (spooled to `path`) as a session whose `source` is the upload's name."""
    from traceview.readers import load

    trace = load(path)
    trace.source = name
    return Session(trace)


def _open_upload(path: Path, name: str) -> Session | Response:
    """The uploaded trace's session, or the one-line error answer, made in the worker thread:
    a raised error would carry the frames that hold the refused input (a gzip's inflated
    bytes, 1 GB for an 8.9 MB upload) to the event loop, and the idle worker thread keeps its
    last error until its next job, so the memory stayed taken."""
    try:
        return session_from_file(path, name)
    except TraceError as exc:
        line = str(exc).splitlines()[0] if str(exc) else "bad trace"
        return _error(400, printable(line.replace(str(path), name)))
    except (ValueError, IndexError, KeyError) as exc:
        return _error(400, f"{name}: {printable(str(exc))}")
    except MemoryError:
        return _error(413, f"{name}: too large to analyse in memory")


class _State:
    """The current session and its answer cache (both replaced by POST /api/open), and in
    compare mode both sides with the candidate's answer cache and the comparisons."""

    def __init__(
        self,
        session: Session,
        answer_bytes: int = MAX_ANSWER_BYTES,
        rename: Rename | None = None,
        sides: Sides | None = None,
    ) -> None:
        self.answer_bytes = answer_bytes
        self.rename = rename
        self.session = session
        self.answers = AnswerCache(answer_bytes)
        self.sides: Sides | None = None
        self.comparisons: Comparisons | None = None
        self.cand_answers = AnswerCache(answer_bytes)
        if sides is not None:
            self.compare(sides)
        self.warm()

    def replace(self, session: Session) -> None:
        self.session, self.answers = session, AnswerCache(self.answer_bytes)
        self.sides = self.comparisons = None
        self.warm()

    def compare(self, sides: Sides) -> None:
        """Compare mode: the base's first trace is the session shown, the candidate's beside."""
        self.session = sides.base[0]
        self.sides, self.comparisons = sides, Comparisons(sides)
        self.answers = AnswerCache(self.answer_bytes)
        self.cand_answers = AnswerCache(self.answer_bytes)
        threading.Thread(target=sides.cand[0].warm, daemon=True).start()

    def pick(self, side: str) -> tuple[Session, AnswerCache, Rename | None]:
        """The session, answer cache and renaming of `side` ("" or base: the one shown)."""
        if side in ("", "base"):
            return self.session, self.answers, self.rename
        if side != "cand":
            raise ValueError(f"side must be base or cand, not {side!r}")
        if self.sides is None:
            raise ValueError("no trace to compare with: open one with “Compare with…”")
        return self.sides.cand[0], self.cand_answers, self.sides.renaming("cand")

    def warm(self) -> None:
        threading.Thread(target=self.session.warm, daemon=True).start()


async def spooled_session(request: Request) -> Session | Response:
    """The trace a POST body carries (its name in `X-Filename`) as a session, or the one-line
    error answer. The body goes to disk as it streams (never whole in memory) and is read
    from there like any file: bounded by the reader's max_size, zero runs cut, verdicts given."""
    name = printable(unquote(request.headers.get("x-filename", "")))[:200] or "uploaded.trace"
    with tempfile.TemporaryDirectory(prefix="traceview-open-") as folder:
        path = Path(folder) / "upload.trace"
        with path.open("wb") as f:
            async for chunk in request.stream():
                f.write(chunk)
        return await run_in_threadpool(_open_upload, path, name)


def create_app(
    session: Session,
    allowed_hosts: Sequence[str] | None = LOCAL_HOSTS,
    max_upload: int = MAX_UPLOAD,
    guarded: bool = True,
    answer_bytes: int = MAX_ANSWER_BYTES,
    rename: Rename | None = None,
    reopen: Callable[[int], Session] | None = None,
    can_open: bool = True,
    sides: Sides | None = None,
    timeouts: Timeouts | None = None,
) -> Starlette:
    """The ASGI app serving `session`. `allowed_hosts`: the Host names answered (DNS
    rebinding guard; None answers any, for tests only); `max_upload`: bytes of POST /api/open;
    `guarded=False` leaves out viewer/guard.py (for an app mounted inside one that has it, as the
    service's viewers are); `answer_bytes`: the answer cache's budget; `rename`: the
    deobfuscation every answer's names get (also for uploaded traces); `reopen(i)`: the
    session of process `i` of the same ANR report (POST /api/process), None when it cannot
    be read again; `sides`: start in compare mode (`session` is then its base's first);
    `timeouts`: how long an upload may stall (viewer/guard.py); `can_open=False`: the UI shows
    no "Open…" (as in the service, where each trace has its own page)."""
    state = _State(session, answer_bytes, rename, sides)
    served = installed()

    def answer(request: Request, names: tuple[str, ...], build: Build) -> Response:
        try:
            s, cache, ren = state.pick(request.query_params.get("side", ""))
            p = params.known(request.query_params, names)
            # the known parameters, in the route's order: junk parameters never reach the key
            key = (request.url.path, *p.items())
            with s.gate.serving():  # the warm-up waits meanwhile (analysis/warmup.py)
                return _json(cache.get(key, lambda: encode(build(s, p, ren))))
        except (ValueError, KeyError, IndexError, TypeError, OverflowError) as exc:
            return _error(400, printable(str(exc).strip("'\"") or type(exc).__name__))

    def tile(p: dict[str, str]) -> tuple[int, int, int]:
        missing = [name for name in TILE if name not in p]
        if missing:  # say which, not a bare KeyError's name
            raise ValueError(f"missing parameter {', '.join(missing)} (needs {'&'.join(TILE)})")
        return int(p["thread"]), int(p["level"]), int(p["tile"])

    def index(request: Request) -> Response:
        return served.page()

    def api_trace(request: Request) -> Response:
        return answer(request, (), lambda s, p, r: trace_of(s))

    def api_methods(request: Request) -> Response:
        return answer(request, (), lambda s, p, r: viewer.methods_answer(s, s.query(rename=r)))

    def api_timeline(request: Request) -> Response:
        return answer(request, TILE, lambda s, p, r: viewer.timeline_answer(s, *tile(p)))

    def api_highlight(request: Request) -> Response:
        method = int(request.path_params["method"])
        return answer(request, TILE, lambda s, p, r: viewer.highlight_answer(s, method, *tile(p)))

    def api_call(request: Request) -> Response:
        row = int(request.path_params["row"])
        return answer(request, (), lambda s, p, r: viewer.call_answer(s, row))

    def api_profile(request: Request) -> Response:
        return answer(
            request,
            params.SELECTION,
            lambda s, p, r: viewer.profile_answer(s, params.query(s, p, r)),
        )

    def api_relations(request: Request) -> Response:
        method = int(request.path_params["method"])
        return answer(
            request,
            params.SELECTION,
            lambda s, p, r: viewer.relations_answer(s, method, params.query(s, p, r)),
        )

    def api_flame(request: Request) -> Response:
        return answer(
            request,
            (*params.SELECTION, "kind", *params.WINDOW),
            lambda s, p, r: viewer.flame_answer(
                s, p.get("kind") or "graph", params.query(s, p, r), *params.window(p)
            ),
        )

    def api_anr(request: Request) -> Response:
        return answer(request, (), lambda s, p, r: viewer.anr_answer(s, s.query(rename=r)))

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
        return _json(encode(viewer.trace_answer(new, can_open=can_open)))

    def api_frames(request: Request) -> Response:
        return answer(
            request,
            ("budget_ms",),
            lambda s, p, r: viewer.frames_answer(s, float(p.get("budget_ms") or 16)),
        )

    async def api_open(request: Request) -> Response:
        new = await spooled_session(request)
        if isinstance(new, Response):
            return new
        state.replace(new)
        return _json(encode(viewer.trace_answer(new, can_open=can_open)))

    def trace_of(s: Session) -> Any:
        """/api/trace, with the sides' run names in compare mode."""
        out = viewer.trace_answer(s, can_open=can_open)
        if state.sides is not None:
            out["compare"] = sides_json(state.sides, "base" if s is state.session else "cand")
        return out

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
        *detail_routes(answer),
        Route("/api/frames", api_frames),
        Route("/api/open", api_open, methods=["POST"]),
        Route("/api/anr", api_anr),
        Route("/api/process", api_process, methods=["POST"]),
        *compare_routes(state, answer, spooled_session, _json, _error),
        *served.routes(),
    ]
    app = Starlette(routes=routes)
    app.state.viewer = state
    if guarded:
        app.add_middleware(Guard, hosts=allowed_hosts, max_body=max_upload, timeouts=timeouts)
    return app
