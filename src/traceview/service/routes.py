"""`traceview serve`: a trace service for a team — upload a trace, get a shareable viewer page.

`create_service` assembles the one route list over a `Store` (store.py) and the open traces
(sessions.py): the upload page, the stored traces' API (service/upload_routes.py: upload,
list, mapping, delete), each trace's pages under `/t/<id>/` (service/trace_routes.py: the
viewer of viewer/app.py, mounted, its flame graphs and report), comparisons of two traces or
two label sets (service/compare.py) and, with a dataset kept in step with the store
(service/feed.py), a method's history per build (service/history.py). Opening a stored trace
happens here, once, for all of them. One viewer/guard.py wraps it all: Host check,
cross-origin writes refused, streamed upload limit, CSP.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from traceview.analysis.query import Rename
from traceview.analysis.rename import MappingRename
from traceview.analysis.session import Session
from traceview.exporters.jsonshape import encode
from traceview.model import TraceError, printable
from traceview.readers.mapping import read_mapping
from traceview.service.compare import compare_routes
from traceview.service.config import ANSWER_BYTES, MAX_UPLOAD, Config, Pools
from traceview.service.feed import Feed
from traceview.service.history import history_routes
from traceview.service.sessions import Entry, SessionCache
from traceview.service.store import Store, valid_id
from traceview.service.trace_routes import trace_routes
from traceview.service.upload_routes import upload_routes
from traceview.viewer.app import LOCAL_HOSTS, create_app
from traceview.viewer.guard import Guard
from traceview.viewer.served import installed


def uploads_dir() -> Path:
    """The folder of the upload page's files (package data)."""
    return Path(str(resources.files("traceview") / "service" / "uploads"))


def _error(status: int, message: str) -> Response:
    return Response(encode({"error": message}), status_code=status, media_type="application/json")


def _page(path: Path) -> Response:
    """A small page of the package, read in place (a few KiB from the page cache: cheaper
    than FileResponse's three thread hops, which queue behind uploads)."""
    return HTMLResponse(path.read_bytes(), headers={"Cache-Control": "no-store"})


def create_service(
    store: Store, allowed_hosts: Sequence[str] | None = LOCAL_HOSTS, config: Config | None = None
) -> Starlette:
    """The service's ASGI app over `store`."""
    cfg = config or Config()
    sessions = SessionCache(cfg.memory_budget)
    pools = Pools(cfg)
    feed = Feed(cfg.dataset, store) if cfg.dataset is not None else None
    if feed is not None:
        feed.start()  # the dataset brought up to the store in the background

    def open_entry(trace_id: str) -> Entry:
        from traceview.readers import load

        record = store.get(trace_id)
        trace = load(store.path(trace_id))
        trace.source = record.name if record else trace_id
        session = Session(trace)
        app = create_app(
            session,
            allowed_hosts=None,
            guarded=False,
            answer_bytes=ANSWER_BYTES,
            rename=_mapping_of(store.mapping_path(trace_id), session),
            can_open=False,  # each trace has its own page: no "Open…" in its viewer
        )
        answers = app.state.viewer.answers
        return Entry(session, app, lambda: int(answers.size))

    async def entry_of(trace_id: str) -> Entry | Response:
        """The open trace, or the error answer (404 unknown, 503 cannot be opened now)."""
        hit = sessions.peek(trace_id)  # an open trace: no thread hop, no index look-up
        if hit is not None:
            if sessions.due():
                await pools.run("store", sessions.trim)
            return hit
        if not valid_id(trace_id):
            return _error(404, "no such trace")
        if await pools.run("store", lambda: store.get(trace_id)) is None:
            return _error(404, "no such trace")
        try:
            return await pools.run(
                "load", lambda: sessions.get(trace_id, lambda: open_entry(trace_id))
            )
        except MemoryError:
            return _error(503, "not enough memory to open this trace now")
        except (TraceError, OSError, ValueError) as exc:
            return _error(503, printable(f"cannot open this trace: {exc}".splitlines()[0]))

    async def page(request: Request) -> Response:
        return _page(uploads_dir() / "index.html")

    served = installed()  # the viewer's page and assets, from memory
    uploads, upload = upload_routes(store, sessions, pools, cfg, feed, _error)
    routes = [
        Route("/", page),
        *uploads,
        *compare_routes(
            store,
            sessions,
            pools.run,
            lambda tid: sessions.get(tid, lambda: open_entry(tid)).session,
            upload,
            _error,
            served.page,
        ),
        *(history_routes(feed, pools.run, _error) if feed is not None else []),
        *trace_routes(entry_of, _error, served.page),  # ends with the viewer's mount on /t/<id>
        *served.routes(),
        Mount("/service", StaticFiles(directory=uploads_dir(), check_dir=False), name="service"),
    ]
    app = Starlette(routes=routes)
    app.state.sessions = sessions
    app.state.store = store
    app.state.feed = feed
    app.add_middleware(Guard, hosts=allowed_hosts, max_body=cfg.max_upload, timeouts=cfg.timeouts)
    return app


def _mapping_of(path: Path, session: Session) -> Rename | None:
    """The renaming of a stored mapping (only the trace's classes read), or None."""
    if not path.is_file():
        return None
    classes = {c.replace("/", ".") for c in session.trace.methods.class_name}
    return MappingRename(read_mapping(path, classes))


__all__ = ["ANSWER_BYTES", "MAX_UPLOAD", "Config", "create_service", "uploads_dir"]
