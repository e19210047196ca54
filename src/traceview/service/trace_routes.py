"""A stored trace's own pages under `/t/<id>/` (docs/serve.md): its viewer (the app of
viewer/app.py, mounted), `/t/<id>/flames` and `/t/<id>/flame/<thread>.svg` (the interactive
flame graphs of the `svg` exporter) and `/t/<id>/report.html` (the offline report, as a
download); each opens the trace through the service's cache of open traces.
"""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable
from html import escape

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.types import Receive, Scope, Send

from traceview import exporters
from traceview.analysis.session import Session
from traceview.analysis.view import View
from traceview.model import visible
from traceview.service.sessions import Entry

FLAME_THREADS = 64  # threads shown on /t/<id>/flames (most time on the default clock first)
# a flame SVG is a document of its own: its inline script (ours; names inside are escaped)
# may run, but it may load and send nothing and may not be framed elsewhere
SVG_CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "frame-ancestors 'self'"
)


async def _cached(entry: Entry, key: str, build: Callable[[], bytes]) -> bytes:
    answers = entry.app.state.viewer.answers
    data: bytes = await anyio.to_thread.run_sync(lambda: answers.get(key, build))
    return data


def trace_routes(
    entry_of: Callable[[str], Awaitable[Entry | Response]],
    error: Callable[[int, str], Response],
    page: Callable[[], Response],
) -> list[Route | Mount]:
    """The routes; `entry_of(id)` is the open trace or the error to answer, `page()` the
    viewer's page. The viewer's mount comes last: it answers every other path."""

    async def viewer_page(request: Request) -> Response:
        entry = await entry_of(request.path_params["tid"])
        return entry if isinstance(entry, Response) else page()

    async def to_viewer(request: Request) -> Response:
        return RedirectResponse(f"/t/{request.path_params['tid']}/", status_code=308)

    async def no_open(request: Request) -> Response:
        return error(405, "each trace has its own page here: upload another on the start page")

    async def flame_svg(request: Request) -> Response:
        entry = await entry_of(request.path_params["tid"])
        if isinstance(entry, Response):
            return entry
        thread = int(request.path_params["thread"])
        s = entry.session
        if not 0 <= thread < len(s.trace.threads):
            return error(404, "no such thread")

        def build() -> bytes:
            out = io.StringIO()
            view = View(s, s.query(threads=[thread]))
            title = f"{s.trace.threads.label(thread)} ({s.trace.source})"
            svg = exporters.get("svg")
            svg.export(view, out, svg.options(title=title, icicle=True))  # as the viewer draws
            return out.getvalue().encode()

        data = await _cached(entry, f"/flame/{thread}.svg", build)
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

        data = await _cached(entry, "/report.html", build)
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

    return [
        Route("/t/{tid}", to_viewer),
        Route("/t/{tid}/", viewer_page),
        Route("/t/{tid}/api/open", no_open, methods=["POST"]),
        Route("/t/{tid}/flames", flames),
        Route("/t/{tid}/flame/{thread:int}.svg", flame_svg),
        Route("/t/{tid}/report.html", report),
        Mount("/t/{tid}", app=viewer),
    ]


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


__all__ = ["FLAME_THREADS", "SVG_CSP", "trace_routes"]
