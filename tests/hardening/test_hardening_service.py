"""The trace service under hostile clients (issue 18), as users run it: `traceview serve` on a
loopback port, with short client timeouts (`--client-timeout 2 --min-rate 1K`) so the test
ends in seconds. Slow-loris: 64 chunked uploads trickling a byte at a time and 300 half-sent
request heads are all closed, and a real upload then succeeds (before, the trickles held
every upload slot with no timeout and the heads stayed open). Races, in bounded rounds of
concurrent requests: a mapping racing a delete never outlives its trace, and identical
uploads at once answer 201 exactly once.

Loops are bounded by counts (each waits a little, see WAIT); nothing asserts a duration.
"""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest

from support.obfuscate import obfuscate
from traceview.synth import generate
from traceview.writer import write

SRC = Path(__file__).resolve().parents[2] / "src"
WRITE = {"X-Traceview": "1", "X-Filename": "r.trace"}
TRICKLES = 64  # the service's upload slots (Config.pending)
HEADS = 300
ATTEMPTS = 240  # polls of 0.25 s: about a minute at most, far above the 2 s timeouts
ROUNDS = 6


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(data: Path) -> Iterator[str]:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    cmd = [sys.executable, "-m", "traceview", "serve", "--port", str(port), "--data", str(data)]
    cmd += ["--client-timeout", "2", "--min-rate", "1K"]
    log = data.parent / f"server-{port}.log"
    with log.open("wb") as err:
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=err)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(ATTEMPTS):  # a start-up wait, not a speed check
            try:
                if httpx.get(url + "/api/traces", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None, log.read_text()
            time.sleep(0.25)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def trace_bytes(seed: int) -> bytes:
    out = io.BytesIO()
    write(generate(records=2000, threads=2, seed=seed), out)
    return out.getvalue()


def connect(port: int, head: bytes) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(head)
    sock.setblocking(False)
    return sock


def closed_by_server(sock: socket.socket) -> bool:
    """True once the server has closed its side (what it said before is read and dropped)."""
    try:
        while data := sock.recv(65536):
            del data
        return True  # end of stream
    except BlockingIOError:
        return False
    except OSError:
        return True  # reset


def test_slow_loris_connections_are_closed_and_uploads_go_on(tmp_path: Path) -> None:
    with serving(tmp_path / "data") as url:
        port = int(url.rsplit(":", 1)[1])
        trickle_head = (
            b"POST /api/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Traceview: 1\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        trickles = [connect(port, trickle_head) for _ in range(TRICKLES)]
        heads = [connect(port, b"POST /api/traces HTTP/1.1\r\nHost: 127") for _ in range(HEADS)]
        open_ = set(trickles) | set(heads)
        answers: list[int] = []
        body = trace_bytes(1)
        try:
            for _ in range(ATTEMPTS):
                for sock in trickles:  # a byte now and then: never idle, far too slow
                    if sock in open_:
                        with suppress(OSError):
                            sock.send(b"1\r\nx\r\n")
                open_ = {s for s in open_ if not closed_by_server(s)}
                if 201 not in answers:
                    r = httpx.post(url + "/api/traces", content=body, headers=WRITE, timeout=60)
                    answers.append(r.status_code)
                if not open_ and 201 in answers:
                    break
                time.sleep(0.25)
        finally:
            for sock in trickles + heads:
                sock.close()
        assert len(open_) == 0, f"{len(open_)} stalled connections still open"
        assert answers[-1] == 201, answers
        assert set(answers) <= {201, 503}, answers


def at_once(*calls: Callable[[], httpx.Response]) -> list[httpx.Response]:
    """The responses of `calls`, each sent from its own thread, all released together."""
    start = threading.Barrier(len(calls), timeout=60)
    out: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        start.wait()
        out[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert all(r is not None for r in out)
    return out


@pytest.fixture(scope="module")
def obfuscated() -> list[tuple[bytes, str]]:
    """ROUNDS (trace bytes, mapping.txt) pairs, each trace different."""
    pairs = []
    for seed in range(ROUNDS):
        obf, mapping = obfuscate(generate(records=2000, threads=2, seed=100 + seed), "q")
        out = io.BytesIO()
        write(obf, out)
        pairs.append((out.getvalue(), mapping))
    return pairs


def test_service_races_keep_one_story(tmp_path: Path, obfuscated: list[tuple[bytes, str]]) -> None:
    with serving(tmp_path / "data") as url, httpx.Client(base_url=url, timeout=120) as client:
        for data, mapping in obfuscated:
            post = partial(client.post, "/api/traces", content=data, headers=WRITE)
            posts = at_once(post, post, post)
            codes = sorted((r.status_code, r.json()["stored"]) for r in posts)
            assert codes == [(200, False), (200, False), (201, True)]
            tid = posts[0].json()["id"]
            put, gone = at_once(
                partial(client.put, f"/api/traces/{tid}/mapping", content=mapping, headers=WRITE),
                partial(client.delete, f"/api/traces/{tid}", headers=WRITE),
            )
            assert gone.status_code == 200 and put.status_code in (200, 404), put.text
            again = post()
            assert again.status_code == 201
            listed = {t["id"]: t["mapping"] for t in client.get("/api/traces").json()["traces"]}
            assert listed[tid] is False  # no names nobody sent for this upload
            assert client.delete(f"/api/traces/{tid}", headers=WRITE).status_code == 200
