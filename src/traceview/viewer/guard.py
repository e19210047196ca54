"""The server's defences as one ASGI middleware: the Host check (DNS rebinding), refusal of
cross-origin writes, an upload size and pace enforced while the body streams, and the security
headers (CSP with `frame-ancestors 'none'`, `X-Frame-Options`, `nosniff`, no referrer) on every
answer that does not set its own (a standalone SVG sets a stricter, self-contained policy).
Below the ASGI app, `head_deadline` gives uvicorn's HTTP protocol a deadline on request heads.

A state-changing request (anything but GET/HEAD/OPTIONS) must come from the page itself: no
`Origin` other than the server's own, no `Sec-Fetch-Site` other than same-origin/none, and
the custom header `X-Traceview` (which a cross-origin page cannot send without a CORS
preflight this server never grants) — so a no-cors `text/plain` form post from another page
is refused.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import anyio

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


@dataclass(frozen=True)
class Timeouts:
    """How long a client may stall (slow-loris: 64 trickling uploads held every upload slot,
    300 half-sent heads stayed open): a request head must be whole `head` seconds after the
    connection opens (or the last answer ends); a body may pause `idle` seconds at most, and
    once it has been waited for `idle` seconds in all it must average `rate` bytes a second
    over the time waited for it (the server's own pauses are not counted)."""

    head: float = 30.0
    idle: float = 30.0
    rate: float = 10 << 10


class Guard:
    """Wraps an ASGI app: `hosts` are the names the server answers to (None: any; only for
    tests), `max_body` the largest request body accepted, `timeouts` its pace."""

    def __init__(
        self,
        app: ASGIApp,
        hosts: Iterable[str] | None,
        max_body: int,
        timeouts: Timeouts | None = None,
    ) -> None:
        self.app = app
        self.hosts = {h.lower() for h in hosts} if hosts is not None else None
        self.max_body = max_body
        self.timeouts = timeouts or Timeouts()

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
            receive = _bounded(receive, self.max_body, self.timeouts)

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
        except BodyTooSlow:
            t = self.timeouts
            why = f"upload too slow: pauses of {t.idle:g} s at most, then {t.rate:g} bytes/s"
            await _refuse(send, 408, why, close=True)  # the stalled connection is closed


class BodyTooLarge(Exception):
    """The request body passed the limit while streaming."""


class BodyTooSlow(Exception):
    """The request body paused too long, or came slower than the minimum rate."""


def _bounded(receive: Receive, limit: int, timeouts: Timeouts) -> Receive:
    seen = 0
    waited = 0.0  # seconds spent waiting for the client's body, in all
    done = False

    async def inner() -> Message:
        nonlocal seen, waited, done
        if done:
            return await receive()
        allowed = min(timeouts.idle, timeouts.idle + seen / timeouts.rate - waited)
        start = time.monotonic()
        message = None
        if allowed > 0:
            with anyio.move_on_after(allowed):
                message = await receive()
        waited += time.monotonic() - start
        if message is None:
            raise BodyTooSlow
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise BodyTooLarge
            done = not message.get("more_body", False)
        else:
            done = True
        return message

    return inner


def head_deadline(seconds: float) -> type[asyncio.Protocol]:
    """uvicorn's h11 HTTP protocol (its `http=` setting) closing a connection whose request
    head is not whole `seconds` after it opened or after its last answer. uvicorn's own
    timeouts do not serve here: its keep-alive timer starts only after an answer and any byte
    stops it, so a head sent a byte at a time, or half a head, kept the connection forever."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeadDeadline(H11Protocol):
        _awaited: object = None
        _timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._await_head()

        def on_response_complete(self) -> None:
            self._await_head()  # before: the answer may start a pipelined request
            super().on_response_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._timer is not None:
                self._timer.cancel()
            super().connection_lost(exc)

        def _await_head(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
            self._awaited = self.cycle  # a new request makes a new cycle
            self._timer = self.loop.call_later(seconds, self._late)

        def _late(self) -> None:
            if self.cycle is self._awaited and not self.transport.is_closing():
                self.transport.close()

    return HeadDeadline


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


async def _refuse(send: Send, status: int, message: str, close: bool = False) -> None:
    from traceview.exporters.jsonshape import encode

    body = encode({"error": message})
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *([(b"connection", b"close")] if close else []),
                *HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
