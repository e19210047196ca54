"""The UI's assets as the live viewer and the service answer them: every shipped file of
`viewer/static` (`assets.shipped`) read into memory once, when the app is made, and answered
from there, and the page itself (`index.html`) with a `modulepreload` link for every module
`app.js` imports, directly or not.

Starlette's `StaticFiles` takes three thread hops a file (a stat, an open, a read); ~40
modules then queue behind whatever else holds the interpreter (the warm-up loading compiled
kernels) and the first screen waited ~0.3 s for its own scripts. From memory a file is one
answer on the event loop. The preload links let the browser fetch every module at once
instead of level by level as it discovers each import. 372 KB of assets; an `ETag` per file
(`Cache-Control: no-cache`: the browser asks again and gets `304` while it is unchanged).
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from traceview.viewer.assets import imported, shipped, static_dir

ENTRY = "app.js"  # the page's one module: the rest is imported from it
# media types by suffix: fixed, not the system's `mimetypes` table (it may name `.js` other
# than JavaScript, which `nosniff` then refuses to run; and reading it took ~15 ms a start)
MEDIA = {
    ".js": "text/javascript",
    ".css": "text/css",
    ".html": "text/html",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".woff2": "font/woff2",
    ".txt": "text/plain",
}


@dataclass(frozen=True)
class Asset:
    """One file's bytes, media type and entity tag."""

    body: bytes
    media_type: str
    etag: str


def read_assets(folder: Path) -> dict[str, Asset]:
    """Every shipped file under `folder` by its path relative to it (with `/`)."""
    found: dict[str, Asset] = {}
    for path in sorted(folder.rglob("*")):
        name = path.relative_to(folder).as_posix()
        if not path.is_file() or not shipped(name):
            continue
        body = path.read_bytes()
        kind = MEDIA.get(path.suffix, "application/octet-stream")
        if kind.startswith("text/") or kind.endswith(("javascript", "json")):
            kind += "; charset=utf-8"
        found[name] = Asset(body, kind, '"' + hashlib.sha256(body).hexdigest()[:32] + '"')
    return found


def preload(files: dict[str, Asset]) -> list[str]:
    """The modules `ENTRY` imports, directly or not, in the order they are first found."""
    order, todo = [ENTRY], [ENTRY]
    while todo:
        name = todo.pop()
        if name not in files:
            continue
        for target in imported(name, files[name].body.decode("utf-8")):
            if target not in order:
                order.append(target)
                todo.append(target)
    return [name for name in order[1:] if name in files]


def with_preloads(page: bytes, modules: list[str]) -> bytes:
    """`page` with a `modulepreload` link for each of `modules` at the end of its head."""
    links = "".join(f'<link rel="modulepreload" href="/static/{m}">\n' for m in modules)
    at = page.find(b"</head>")
    return page if at < 0 else page[:at] + links.encode() + page[at:]


class Served:
    """The assets of `folder` (default the installed UI) in memory: `routes()` answers them
    under `/static/`, `page()` is `index.html` with its preload links."""

    def __init__(self, folder: Path | None = None) -> None:
        root = folder or static_dir()
        self.files = read_assets(root) if root.is_dir() else {}
        index = root / "index.html"
        self.index = None
        if index.is_file():
            self.index = with_preloads(index.read_bytes(), preload(self.files))

    def page(self) -> Response:
        """The viewer's page (never cached: it names no version of the assets)."""
        if self.index is None:
            return HTMLResponse(
                "<!doctype html><title>traceview</title><p>The UI is not installed."
            )
        return HTMLResponse(self.index, headers={"Cache-Control": "no-store"})

    async def asset(self, request: Request) -> Response:
        found = self.files.get(request.path_params["path"])
        if found is None:
            return Response("Not Found", status_code=404, media_type="text/plain")
        headers = {"ETag": found.etag, "Cache-Control": "no-cache"}
        if found.etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        body = b"" if request.method == "HEAD" else found.body
        headers["Content-Length"] = str(len(found.body))
        return Response(body, media_type=found.media_type, headers=headers)

    def routes(self) -> list[Route]:
        return [Route("/static/{path:path}", self.asset, methods=["GET", "HEAD"])]


@functools.cache
def installed() -> Served:
    """The installed UI's assets, read once a process (the viewer, the service and each of
    the service's traces share them)."""
    return Served()


__all__ = ["Asset", "Served", "installed", "preload", "read_assets", "with_preloads"]
