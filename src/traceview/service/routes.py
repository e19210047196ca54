"""`traceview serve`: a trace service for a team — upload a trace, get a shareable viewer page.

Routes over a `Store` (store.py) and the open sessions (sessions.py): the upload page,
`POST /api/traces` (raw body or multipart, gzip accepted, streamed to a staged file under the
size limit, checked by service/probe.py in a child process off the event loop, then stored under
its SHA-256), `GET /api/traces`, `DELETE /api/traces/<id>`, and per trace `/t/<id>/` (the
viewer of viewer/app.py, mounted), `/t/<id>/flames` and `/t/<id>/flame/<thread>.svg` (the
interactive flame graphs of the `svg` exporter), `/t/<id>/report.html` (the offline report, as
a download); uploads may carry labels (`?app=…&build=…&branch=…&device=…`), and
service/compare.py compares two traces or two label sets (`/compare/<base>/<cand>/`). One
viewer/guard.py wraps it all: Host check, cross-origin writes refused, streamed upload limit,
CSP.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib.util
import io
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any, BinaryIO, TypeVar
from urllib.parse import unquote

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

from traceview import exporters
from traceview.analysis.query import Rename
from traceview.analysis.rename import MappingRename
from traceview.analysis.session import Session
from traceview.analysis.view import View
from traceview.exporters.jsonshape import encode
from traceview.model import TraceError, printable, visible
from traceview.readers.mapping import read_mapping
from traceview.service.compare import compare_routes
from traceview.service.history import Feed, history_routes
from traceview.service.probe import Limits, Rejected, probe
from traceview.service.sessions import BUDGET, Entry, SessionCache
from traceview.service.store import LABELS, Store, TraceRecord, check_labels, now, valid_id
from traceview.viewer.app import LOCAL_HOSTS, create_app, static_files
from traceview.viewer.guard import Guard, Timeouts
from traceview.viewer.page import static_dir

MAX_UPLOAD = 2 << 30
MAX_MAPPING = 512 << 20  # the largest apps' R8 mappings are a few hundred MB
ANSWER_BYTES = 64 << 20  # encoded answers kept per open trace (counted in the memory budget)
CHUNK = 1 << 20
LISTED = 200  # uploads GET /api/traces lists
FLAME_THREADS = 64  # threads shown on /t/<id>/flames (most time on the default clock first)
# a flame SVG is a document of its own: its inline script (ours; names inside are escaped)
# may run, but it may load and send nothing and may not be framed elsewhere
SVG_CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "frame-ancestors 'self'"
)
T = TypeVar("T")


@dataclass(frozen=True)
class Config:
    """The service's knobs: upload limit (bytes), token (None: anyone may upload/delete),
    memory budget of open traces, per-upload analysis limits, how many checks and loads run
    at once, how many uploads may be in flight (more get 503) and how long a client may stall
    (a stalled upload is cut off with 408, so its slot comes back)."""

    max_upload: int = MAX_UPLOAD
    token: str | None = None
    memory_budget: int = BUDGET
    limits: Limits = field(default_factory=Limits)
    analysers: int = 2
    loaders: int = 2
    pending: int = 64  # uploads in flight at once (each may stage up to max_upload bytes)
    dataset: Path | None = None  # where uploads are added as a dataset (service/history.py)
    timeouts: Timeouts = field(default_factory=Timeouts)


def uploads_dir() -> Path:
    """The folder of the upload page's files (package data)."""
    return Path(str(resources.files("traceview") / "service" / "uploads"))


def _error(status: int, message: str) -> Response:
    return Response(encode({"error": message}), status_code=status, media_type="application/json")


def _json(value: Any, status: int = 200) -> Response:
    return Response(
        encode(value),
        status_code=status,
        media_type="application/json",
        headers={"Cache-Control": "no-store"},
    )


class _Pools:
    """Capacity limiters, made on first use (they belong to the running event loop)."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.analyse: anyio.CapacityLimiter | None = None
        self.load: anyio.CapacityLimiter | None = None
        self.uploads = 0  # in flight

    async def run(self, kind: str, fn: Callable[[], T]) -> T:
        """`fn()` in a worker thread: "analyse" (upload checks) and "load" (opening a stored
        trace) each have their own small pool; "store" (index and file work) the default."""
        if self.analyse is None or self.load is None:
            self.analyse = anyio.CapacityLimiter(self.config.analysers)
            self.load = anyio.CapacityLimiter(self.config.loaders)
        limiter = {"analyse": self.analyse, "load": self.load}.get(kind)
        return await anyio.to_thread.run_sync(fn, limiter=limiter)


def _feed_one(feed: Feed, store: Store, record: TraceRecord, again: bool = False) -> None:
    """Add a stored trace to the service's dataset with its labels and mapping now (`again`:
    replace its rows, its mapping came or went); a failure is noted on stderr: the upload is
    stored whatever the dataset says."""
    mapping = store.mapping_path(record.id)
    try:
        feed.keep(
            store.path(record.id),
            record.id,
            record.name,
            store.labels(record.id),
            mapping if mapping.is_file() else None,
            again,
        )
    except Exception as exc:  # the dataset is a by-product: never fail the service for it
        print(f"traceview serve: dataset: {printable(str(exc))}", file=sys.stderr)


def _fsync(path: Path) -> None:
    with path.open("rb+") as f:
        os.fsync(f.fileno())


def _page(path: Path) -> Response:
    """A small page of the package, read in place (a few KiB from the page cache: cheaper
    than FileResponse's three thread hops, which queue behind uploads)."""
    return HTMLResponse(path.read_bytes(), headers={"Cache-Control": "no-store"})


def _upload_name(request: Request) -> str:
    raw = request.headers.get("x-filename") or request.query_params.get("name") or ""
    return _clean_name(unquote(raw))


def _clean_name(raw: str) -> str:
    name = printable(raw.replace("\\", "/").rsplit("/", 1)[-1]).strip()[:200]
    return name or "upload.trace"


def create_service(
    store: Store, allowed_hosts: Sequence[str] | None = LOCAL_HOSTS, config: Config | None = None
) -> Starlette:
    """The service's ASGI app over `store`."""
    cfg = config or Config()
    sessions = SessionCache(cfg.memory_budget)
    pools = _Pools(cfg)
    feed = Feed.at(cfg.dataset) if cfg.dataset is not None else None

    def has_mapping(trace_id: str) -> bool:
        return store.mapping_path(trace_id).is_file()

    def authorised(request: Request) -> bool:
        if cfg.token is None:
            return True
        given = request.headers.get("authorization", "")
        return hmac.compare_digest(given.encode(), f"Bearer {cfg.token}".encode())

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

    async def cached(entry: Entry, key: str, build: Callable[[], bytes]) -> bytes:
        answers = entry.app.state.viewer.answers
        data: bytes = await anyio.to_thread.run_sync(lambda: answers.get(key, build))
        return data

    async def page(request: Request) -> Response:
        return _page(uploads_dir() / "index.html")

    async def viewer_page(request: Request) -> Response:
        entry = await entry_of(request.path_params["tid"])
        return entry if isinstance(entry, Response) else _page(static_dir() / "index.html")

    async def listing(request: Request) -> Response:
        records = await pools.run("store", lambda: store.recent(LISTED))
        return _json(
            {
                "traces": [
                    {
                        **r.json(),
                        "url": f"/t/{r.id}/",
                        "mapping": has_mapping(r.id),
                        "labels": store.labels(r.id),
                    }
                    for r in records
                ],
                "token_required": cfg.token is not None,
                "max_upload": cfg.max_upload,
            }
        )

    async def one(request: Request) -> Response:
        trace_id = request.path_params["tid"]
        record = await pools.run("store", lambda: store.get(trace_id))
        if record is None:
            return _error(404, "no such trace")
        labels = await pools.run("store", lambda: store.labels(trace_id))
        return _json({**record.json(), "url": f"/t/{record.id}/", "labels": labels})

    async def upload(request: Request) -> Response:
        if not authorised(request):
            return _error(401, "a valid token is required to upload (Authorization: Bearer …)")
        if pools.uploads >= cfg.pending:
            response = _error(503, "too many uploads in progress; try again shortly")
            response.headers["Retry-After"] = "5"
            return response
        pools.uploads += 1  # the event loop is the only writer: no lock
        try:
            return await _upload(request)
        finally:
            pools.uploads -= 1

    async def _upload(request: Request) -> Response:
        try:
            labels = check_labels(
                {k: v for k in LABELS if (v := request.query_params.get(k)) is not None}
            )
        except ValueError as exc:
            return _error(400, printable(str(exc)))
        staged = await pools.run("store", store.staging_file)
        try:
            try:
                digest, size, name = await _receive(request, staged)
            except _NoFile:
                return _error(400, "the multipart upload holds no file part")
            except _NoMultipart:
                return _error(415, "multipart needs python-multipart here; send the raw file")
            if size == 0:
                return _error(400, f"{name}: empty upload")
            trace_id = digest.hexdigest()
            old = await pools.run("store", lambda: store.get(trace_id))
            if old is not None:
                if labels:
                    await pools.run("store", lambda: store.set_labels(trace_id, labels))
                again = _json({**old.json(), "url": f"/t/{old.id}/", "stored": False})
                return _to_dataset(again, old)
            await pools.run("store", lambda: _fsync(staged))
            try:
                facts = await pools.run("analyse", lambda: probe(str(staged), cfg.limits))
            except Rejected as exc:
                return _error(400, f"{name}: {exc}")
            record = TraceRecord(
                id=trace_id,
                name=name,
                size=size,
                variant=str(facts["variant"]),
                threads=int(facts["threads"]),
                records=int(facts["records"]),
                duration_us=float(facts["duration_us"]),
                uploaded=now(),
            )
            kept, new = await pools.run("store", lambda: store.add(staged, record))
            if labels:
                await pools.run("store", lambda: store.set_labels(kept.id, labels))
            answer = {**kept.json(), "url": f"/t/{kept.id}/", "stored": new}
            return _to_dataset(_json(answer, status=201 if new else 200), kept)
        finally:
            staged.unlink(missing_ok=True)

    def _to_dataset(response: Response, record: TraceRecord, again: bool = False) -> Response:
        """The answer, adding the trace to the dataset once it is sent (`again`: its rows
        replaced, with the mapping it has now)."""
        if feed is not None:
            response.background = BackgroundTask(_feed_one, feed, store, record, again)
        return response

    async def put_mapping(request: Request) -> Response:
        """PUT /api/traces/<id>/mapping: the build's ProGuard/R8 mapping.txt (raw or
        multipart); the trace's viewer, flame graphs and report show original names."""
        if not authorised(request):
            return _error(401, "a valid token is required to add a mapping (Authorization: …)")
        trace_id = request.path_params["tid"]
        record = await pools.run("store", lambda: store.get(trace_id))
        if record is None:
            return _error(404, "no such trace")
        staged = await pools.run("store", store.staging_file)
        try:
            try:
                _, size, name = await _receive(request, staged)
            except (_NoFile, _NoMultipart):
                return _error(400, "send the mapping file as the request body")
            if size == 0:
                return _error(400, f"{name}: empty mapping")
            if size > MAX_MAPPING:
                return _error(413, f"{name}: a mapping over {MAX_MAPPING >> 20} MiB is refused")
            try:  # parsed in a child process, as uploads are checked: bounded, GIL of its own
                checked = await pools.run(
                    "analyse", lambda: probe(str(staged), cfg.limits, "mapping")
                )
            except Rejected as exc:
                return _error(400, f"{name}: {exc}")
            await pools.run("store", lambda: _fsync(staged))
            if not await pools.run("store", lambda: store.set_mapping(trace_id, staged)):
                return _error(404, "no such trace")  # deleted while the mapping came
            sessions.drop(trace_id)  # reopened with the names on the next view
            answer = {"id": trace_id, "mapping": True, "notes": int(checked["notes"])}
            return _to_dataset(_json(answer), record, again=True)
        finally:
            staged.unlink(missing_ok=True)

    async def delete_mapping(request: Request) -> Response:
        """DELETE /api/traces/<id>/mapping: the obfuscated names again, everywhere."""
        if not authorised(request):
            return _error(401, "a valid token is required to remove a mapping (Authorization: …)")
        trace_id = request.path_params["tid"]
        record = await pools.run("store", lambda: store.get(trace_id))
        if record is None:
            return _error(404, "no such trace")
        if not await pools.run("store", lambda: store.delete_mapping(trace_id)):
            return _error(404, "this trace has no mapping")
        sessions.drop(trace_id)  # reopened without the names on the next view
        return _to_dataset(_json({"id": trace_id, "mapping": False}), record, again=True)

    async def delete(request: Request) -> Response:
        if not authorised(request):
            return _error(401, "a valid token is required to delete (Authorization: Bearer …)")
        trace_id = request.path_params["tid"]
        gone = await pools.run("store", lambda: store.delete(trace_id))
        for key in sessions.sizes():  # the trace and every comparison holding it
            if trace_id in key:
                sessions.drop(key)
        return _json({"deleted": trace_id}) if gone else _error(404, "no such trace")

    async def to_viewer(request: Request) -> Response:
        return RedirectResponse(f"/t/{request.path_params['tid']}/", status_code=308)

    async def no_open(request: Request) -> Response:
        return _error(405, "each trace has its own page here: upload another on the start page")

    async def flame_svg(request: Request) -> Response:
        entry = await entry_of(request.path_params["tid"])
        if isinstance(entry, Response):
            return entry
        thread = int(request.path_params["thread"])
        s = entry.session
        if not 0 <= thread < len(s.trace.threads):
            return _error(404, "no such thread")

        def build() -> bytes:
            out = io.StringIO()
            view = View(s, s.query(threads=[thread]))
            title = f"{s.trace.threads.label(thread)} ({s.trace.source})"
            svg = exporters.get("svg")
            svg.export(view, out, svg.options(title=title, icicle=True))  # as the viewer draws
            return out.getvalue().encode()

        data = await cached(entry, f"/flame/{thread}.svg", build)
        headers = {"Cache-Control": "no-store", "Content-Security-Policy": SVG_CSP}
        return Response(data, media_type="image/svg+xml", headers=headers)

    async def flames(request: Request) -> Response:
        entry = await entry_of(request.path_params["tid"])
        if isinstance(entry, Response):
            return entry
        return Response(_flames_page(entry.session), media_type="text/html")

    async def report(request: Request) -> Response:
        entry = await entry_of(request.path_params["tid"])
        if isinstance(entry, Response):
            return entry
        s = entry.session

        def build() -> bytes:
            out = io.StringIO()
            exporters.get("report").export(View(s, s.query()), out)
            return out.getvalue().encode()

        data = await cached(entry, "/report.html", build)
        stem = "".join(c if c.isalnum() or c in "._-" else "_" for c in str(s.trace.source))
        # a download: the report runs inline scripts, which this origin's CSP forbids
        return Response(
            data,
            media_type="text/html",
            headers={"Content-Disposition": f'attachment; filename="{stem[:80]}.report.html"'},
        )

    async def viewer(scope: Scope, receive: Receive, send: Send) -> None:
        entry = await entry_of(scope["path_params"]["tid"])
        if isinstance(entry, Response):
            await entry(scope, receive, send)
            return
        await entry.app(scope, receive, send)

    routes = [
        Route("/", page),
        Route("/api/traces", listing),
        Route("/api/traces", upload, methods=["POST"]),
        Route("/api/traces/{tid}", one),
        Route("/api/traces/{tid}", delete, methods=["DELETE"]),
        Route("/api/traces/{tid}/mapping", put_mapping, methods=["PUT"]),
        Route("/api/traces/{tid}/mapping", delete_mapping, methods=["DELETE"]),
        Route("/t/{tid}", to_viewer),
        Route("/t/{tid}/", viewer_page),
        Route("/t/{tid}/api/open", no_open, methods=["POST"]),
        Route("/t/{tid}/flames", flames),
        Route("/t/{tid}/flame/{thread:int}.svg", flame_svg),
        Route("/t/{tid}/report.html", report),
        *compare_routes(
            store,
            sessions,
            pools.run,
            lambda tid: sessions.get(tid, lambda: open_entry(tid)).session,
            upload,
            _error,
            _page,
        ),
        *(history_routes(feed, pools.run, _error) if feed is not None else []),
        Mount("/t/{tid}", app=viewer),
        Mount("/static", static_files(), name="static"),
        Mount("/service", StaticFiles(directory=uploads_dir(), check_dir=False), name="service"),
    ]
    app = Starlette(routes=routes)
    app.state.sessions = sessions
    app.state.store = store
    app.add_middleware(Guard, hosts=allowed_hosts, max_body=cfg.max_upload, timeouts=cfg.timeouts)
    return app


class _Sink:
    """An upload's staged file and its SHA-256, fed in batches of about CHUNK bytes in a
    worker thread: a write can block when the kernel throttles dirty pages under many
    uploads, and that must not stall the event loop answering pages."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.digest = hashlib.sha256()
        self.size = 0
        self._batch: list[bytes] = []
        self._pending = 0

    async def feed(self, chunk: bytes) -> None:
        self._batch.append(chunk)
        self._pending += len(chunk)
        if self._pending >= CHUNK:
            await self.flush()

    async def flush(self) -> None:
        data = b"".join(self._batch)
        self._batch, self._pending = [], 0
        if data:
            await anyio.to_thread.run_sync(self._write, data)

    def _write(self, data: bytes) -> None:
        self.digest.update(data)  # hashlib and write release the GIL for large buffers
        self.out.write(data)
        self.size += len(data)


async def _receive(request: Request, staged: Path) -> tuple[Any, int, str]:
    """Stream the upload into `staged`: (sha256 of the bytes, size, name). Multipart takes
    the first file part; any other body is the file itself."""
    name = _upload_name(request)
    with staged.open("wb") as out:
        sink = _Sink(out)
        if request.headers.get("content-type", "").startswith("multipart/form-data"):
            if importlib.util.find_spec("python_multipart") is None:
                raise _NoMultipart
            form = await request.form(max_files=1, max_fields=8)
            part = next((v for v in form.values() if isinstance(v, UploadFile)), None)
            if part is None:
                await form.close()
                raise _NoFile
            name = _clean_name(part.filename or name)
            while chunk := await part.read(CHUNK):
                await sink.feed(chunk)
            await form.close()
        else:
            async for chunk in request.stream():
                await sink.feed(chunk)
        await sink.flush()
    return sink.digest, sink.size, name


class _NoFile(Exception):
    """A multipart upload without a file part."""


class _NoMultipart(Exception):
    """A multipart upload, and python-multipart (Starlette's form parser) is not installed."""


def _mapping_of(path: Path, session: Session) -> Rename | None:
    """The renaming of a stored mapping (only the trace's classes read), or None."""
    if not path.is_file():
        return None
    classes = {c.replace("/", ".") for c in session.trace.methods.class_name}
    return MappingRename(read_mapping(path, classes))


def _flames_page(s: Session) -> str:
    """The per-thread flame graphs of one trace, the threads with the most time first, roots on
    top as in the viewer (AFlame's page)."""
    tr = s.trace
    clock = s.default_clock  # threads ranked by their time, as the viewer's busy order
    busy = [int(s.calls.thread_total(t, clock)) for t in range(len(tr.threads))]
    order = sorted(range(len(tr.threads)), key=lambda t: (-busy[t], t))
    shown = [t for t in order if s.thread_records[t]][:FLAME_THREADS]
    title = escape(visible(str(tr.source)))
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{title}: flame graphs</title><link rel='icon' href='data:,'></head>",
        "<body style='font-family:system-ui,sans-serif;margin:16px;background:#f7f7f4'>",
        f"<h1 style='font-size:20px'>{title}</h1>",
        "<p><a href='./'>open in the viewer</a> · <a href='report.html'>offline report</a> · "
        "<a href='/'>all traces</a></p>",
    ]
    for t in shown:
        label = escape(visible(tr.threads.label(t)))
        parts.append(
            f"<h2 style='font-size:15px'>{label} <small>({busy[t] / 1e6:,.3f} ms {clock}, "
            f"{int(s.thread_records[t])} records)</small></h2>"
            f"<p><a href='flame/{t}.svg'><img src='flame/{t}.svg' alt='{label}' "
            "style='max-width:100%;border:1px solid #ccc' loading='lazy'></a></p>"
        )
    if len(order) > len(shown):
        parts.append(f"<p>{len(order) - len(shown)} more threads not shown.</p>")
    parts.append("</body></html>")
    return "".join(parts)
