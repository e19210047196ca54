"""The service's routes over its stored traces (docs/serve.md): `POST /api/traces` (raw body or
multipart, gzip accepted, streamed to a staged file by service/staging.py under the size
limit, checked by service/probe.py in a child process off the event loop, then stored under
its SHA-256 with its labels and added to the service's dataset by service/feed.py),
`GET /api/traces` and `/api/traces/<id>`, `PUT /api/traces/<id>/mapping` and
`DELETE /api/traces/<id>`; writes need the service's token when it has one.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from traceview.exporters.jsonshape import encode
from traceview.model import printable
from traceview.service.config import Config, Pools
from traceview.service.feed import Feed
from traceview.service.probe import Rejected, probe
from traceview.service.sessions import SessionCache
from traceview.service.staging import NoFile, NoMultipart, fsync, receive
from traceview.service.store import LABELS, Store, TraceRecord, check_labels, now

MAX_MAPPING = 512 << 20  # the largest apps' R8 mappings are a few hundred MB
LISTED = 200  # uploads GET /api/traces lists
Endpoint = Callable[[Request], Awaitable[Response]]


def _json(value: Any, status: int = 200) -> Response:
    return Response(
        encode(value),
        status_code=status,
        media_type="application/json",
        headers={"Cache-Control": "no-store"},
    )


def upload_routes(
    store: Store,
    sessions: SessionCache,
    pools: Pools,
    cfg: Config,
    feed: Feed | None,
    error: Callable[[int, str], Response],
) -> tuple[list[Route], Endpoint]:
    """The routes, and the upload endpoint itself (the compare routes store a trace with it);
    a trace's open sessions in `sessions` are dropped when its mapping comes or it goes."""

    def has_mapping(trace_id: str) -> bool:
        return store.mapping_path(trace_id).is_file()

    def authorised(request: Request) -> bool:
        if cfg.token is None:
            return True
        given = request.headers.get("authorization", "")
        return hmac.compare_digest(given.encode(), f"Bearer {cfg.token}".encode())

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
            return error(404, "no such trace")
        labels = await pools.run("store", lambda: store.labels(trace_id))
        return _json({**record.json(), "url": f"/t/{record.id}/", "labels": labels})

    async def upload(request: Request) -> Response:
        if not authorised(request):
            return error(401, "a valid token is required to upload (Authorization: Bearer …)")
        if pools.uploads >= cfg.pending:
            response = error(503, "too many uploads in progress; try again shortly")
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
            return error(400, printable(str(exc)))
        staged = await pools.run("store", store.staging_file)
        try:
            try:
                digest, size, name = await receive(request, staged)
            except NoFile:
                return error(400, "the multipart upload holds no file part")
            except NoMultipart:
                return error(415, "multipart needs python-multipart here; send the raw file")
            if size == 0:
                return error(400, f"{name}: empty upload")
            trace_id = digest.hexdigest()
            old = await pools.run("store", lambda: store.get(trace_id))
            if old is not None:
                if labels:
                    await pools.run("store", lambda: store.set_labels(trace_id, labels))
                again = _json({**old.json(), "url": f"/t/{old.id}/", "stored": False})
                return _to_dataset(again, old.id)
            await pools.run("store", lambda: fsync(staged))
            try:
                facts = await pools.run("analyse", lambda: probe(str(staged), cfg.limits))
            except Rejected as exc:
                return error(400, f"{name}: {exc}")
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
            return _to_dataset(_json(answer, status=201 if new else 200), kept.id)
        finally:
            staged.unlink(missing_ok=True)

    def _to_dataset(response: Response, trace_id: str) -> Response:
        """The answer; once it is sent, the trace's rows in the dataset become those of the
        trace as it is stored then (added, labels or mapping changed, or gone: feed.py), one
        trace at a time, waiting without a thread."""
        if feed is not None:
            response.background = BackgroundTask(pools.run, "feed", partial(feed.sync, trace_id))
        return response

    async def put_mapping(request: Request) -> Response:
        """PUT /api/traces/<id>/mapping: the build's ProGuard/R8 mapping.txt (raw or
        multipart); the trace's viewer, flame graphs and report show original names."""
        if not authorised(request):
            return error(401, "a valid token is required to add a mapping (Authorization: …)")
        trace_id = request.path_params["tid"]
        record = await pools.run("store", lambda: store.get(trace_id))
        if record is None:
            return error(404, "no such trace")
        staged = await pools.run("store", store.staging_file)
        try:
            try:
                _, size, name = await receive(request, staged)
            except (NoFile, NoMultipart):
                return error(400, "send the mapping file as the request body")
            if size == 0:
                return error(400, f"{name}: empty mapping")
            if size > MAX_MAPPING:
                return error(413, f"{name}: a mapping over {MAX_MAPPING >> 20} MiB is refused")
            try:  # parsed in a child process, as uploads are checked: bounded, GIL of its own
                checked = await pools.run(
                    "analyse", lambda: probe(str(staged), cfg.limits, "mapping")
                )
            except Rejected as exc:
                return error(400, f"{name}: {exc}")
            await pools.run("store", lambda: fsync(staged))
            if not await pools.run("store", lambda: store.set_mapping(trace_id, staged)):
                return error(404, "no such trace")  # deleted while the mapping came
            sessions.drop(trace_id)  # reopened with the names on the next view
            answer = {"id": trace_id, "mapping": True, "notes": int(checked["notes"])}
            return _to_dataset(_json(answer), trace_id)
        finally:
            staged.unlink(missing_ok=True)

    async def delete_mapping(request: Request) -> Response:
        """DELETE /api/traces/<id>/mapping: the obfuscated names again, everywhere."""
        if not authorised(request):
            return error(401, "a valid token is required to remove a mapping (Authorization: …)")
        trace_id = request.path_params["tid"]
        record = await pools.run("store", lambda: store.get(trace_id))
        if record is None:
            return error(404, "no such trace")
        if not await pools.run("store", lambda: store.delete_mapping(trace_id)):
            return error(404, "this trace has no mapping")
        sessions.drop(trace_id)  # reopened without the names on the next view
        return _to_dataset(_json({"id": trace_id, "mapping": False}), trace_id)

    async def delete(request: Request) -> Response:
        if not authorised(request):
            return error(401, "a valid token is required to delete (Authorization: Bearer …)")
        trace_id = request.path_params["tid"]
        gone = await pools.run("store", lambda: store.delete(trace_id))
        for key in sessions.sizes():  # the trace and every comparison holding it
            if trace_id in key:
                sessions.drop(key)
        if not gone:
            return error(404, "no such trace")
        return _to_dataset(_json({"deleted": trace_id}), trace_id)  # its rows leave

    routes = [
        Route("/api/traces", listing),
        Route("/api/traces", upload, methods=["POST"]),
        Route("/api/traces/{tid}", one),
        Route("/api/traces/{tid}", delete, methods=["DELETE"]),
        Route("/api/traces/{tid}/mapping", put_mapping, methods=["PUT"]),
        Route("/api/traces/{tid}/mapping", delete_mapping, methods=["DELETE"]),
    ]
    return routes, upload


__all__ = ["LISTED", "MAX_MAPPING", "upload_routes"]
