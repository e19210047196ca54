"""The server's defences as one ASGI middleware: the Host check (DNS rebinding), refusal of
cross-origin writes, an upload size enforced while the body streams, and the security headers
(CSP with `frame-ancestors 'none'`, `X-Frame-Options`, `nosniff`, no referrer) on every answer
that does not set its own (a standalone SVG sets a stricter, self-contained policy).

A state-changing request (anything but GET/HEAD/OPTIONS) must come from the page itself: no
`Origin` other than the server's own, no `Sec-Fetch-Site` other than same-origin/none, and
the custom header `X-Traceview` (which a cross-origin page cannot send without a CORS
preflight this server never grants) — so a no-cors `text/plain` form post from another page
is refused.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]
SAFE = {"GET", "HEAD", "OPTIONS"}
WRITE_HEADER = b"x-traceview"


class Guard:
    """Wraps an ASGI app: `hosts` are the names the server answers to (None: any; only for
    tests), `max_body` the largest request body accepted."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str] | None, max_body: int) -> None:
        self.app = app
        self.hosts = {h.lower() for h in hosts} if hosts is not None else None
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.lower(): v for k, v in scope.get("headers", [])}
        host = headers.get(b"host", b"").decode("latin-1").lower()
        if self.hosts is not None and _hostname(host) not in self.hosts:
            await _refuse(send, 400, "unknown Host")
            return
        if scope["method"] not in SAFE:
            why = _cross_origin(headers, host)
            if why:
                await _refuse(send, 403, why)
                return
            length = headers.get(b"content-length")
            if length is not None and (not length.isdigit() or int(length) > self.max_body):
                await _refuse(send, 413, f"upload too large (limit {self.max_body} bytes)")
                return
            receive = _bounded(receive, self.max_body)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":  # a route's own policy wins
                own = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in HEADERS if k not in own]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        try:
            await self.app(scope, receive, send_with_headers)
        except BodyTooLarge:
            await _refuse(send, 413, f"upload too large (limit {self.max_body} bytes)")


class BodyTooLarge(Exception):
    """The request body passed the limit while streaming."""


def _bounded(receive: Receive, limit: int) -> Receive:
    seen = 0

    async def inner() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise BodyTooLarge
        return message

    return inner


def _hostname(host: str) -> str:
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _cross_origin(headers: dict[bytes, bytes], host: str) -> str | None:
    origin = headers.get(b"origin")
    if origin is not None and origin != b"null":
        parts = urlsplit(origin.decode("latin-1"))
        if parts.netloc.lower() != host:
            return "cross-origin request refused"
    elif origin == b"null":
        return "cross-origin request refused"
    site = headers.get(b"sec-fetch-site")
    if site is not None and site not in (b"same-origin", b"none"):
        return "cross-site request refused"
    if WRITE_HEADER not in headers:
        return "request refused: missing X-Traceview header"
    return None


async def _refuse(send: Send, status: int, message: str) -> None:
    from traceview.exporters.jsonshape import encode

    body = encode({"error": message})
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
