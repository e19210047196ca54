"""The pace viewer/guard.py asks of request bodies (issue 18, slow-loris): a body that pauses longer
than `idle`, or trickles slower than `rate` once waited for `idle` seconds, ends in
`BodyTooSlow` (the guard answers 408 and closes the connection); a body that keeps coming, or
a server that is slow to read it, is not cut. Short timeouts, bounded loops, no clock read."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import anyio
import pytest

from traceview.viewer.guard import BodyTooSlow, Message, Timeouts, _bounded

FAST = Timeouts(head=1.0, idle=0.2, rate=1000.0)
T = TypeVar("T")


def run(main: Callable[[], Awaitable[T]]) -> T:
    """`anyio.run(main)` on a thread of its own: the shared browser fixture keeps Playwright's
    event loop on the main thread once a browser test has run, and a second loop may not
    start there."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(anyio.run, main).result()


def test_a_body_that_stops_is_cut_after_idle() -> None:
    async def stalled() -> Message:
        await anyio.sleep_forever()
        raise AssertionError

    async def main() -> None:
        receive = _bounded(stalled, 1 << 20, FAST)
        with pytest.raises(BodyTooSlow):
            await receive()

    run(main)


def test_a_trickle_is_cut_by_the_rate_though_it_never_pauses_long() -> None:
    async def trickle() -> Message:
        await anyio.sleep(0.05)  # a byte every 50 ms: never idle for 200 ms, 20 bytes/s
        return {"type": "http.request", "body": b"x", "more_body": True}

    async def main() -> int:
        receive = _bounded(trickle, 1 << 20, FAST)
        for n in range(1, 200):  # about 10 s at most; cut after about 0.2 s
            try:
                await receive()
            except BodyTooSlow:
                return n
        return 0

    assert 0 < run(main) < 200


def test_a_steady_body_and_a_slow_reader_pass() -> None:
    chunks = [b"x" * 500] * 20 + [b""]

    async def steady() -> Message:
        await anyio.sleep(0.01)
        body = chunks.pop(0)
        return {"type": "http.request", "body": body, "more_body": bool(chunks)}

    async def main() -> bytes:
        receive = _bounded(steady, 1 << 20, FAST)
        got = b""
        while True:
            message = await receive()
            body: bytes = message["body"]
            got += body
            await anyio.sleep(0.05)  # the server's own pause is not the client's
            if not message["more_body"]:
                return got

    assert len(run(main)) == 10_000
