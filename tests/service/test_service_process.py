"""The service as users run it: `python -m traceview serve` in a real uvicorn process on a free
loopback port — upload → view → restart → view, and kill -9 in the middle of uploads loses
nothing that was acknowledged (and leaves nothing half-written visible)."""

from __future__ import annotations

import io
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from traceview.synth import generate
from traceview.writer import write

ROOT = Path(__file__).resolve().parents[2]
WRITE = {"X-Traceview": "1"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(data: Path, *extra: str) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    cmd = [sys.executable, "-m", "traceview", "serve", "--port", str(port), "--data", str(data)]
    cmd += extra
    log = data.parent / f"server-{port}.log"  # a pipe nobody reads could fill and block it
    with log.open("wb") as err:
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=err)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):  # a start-up wait (up to ~30 s on a loaded machine), not a speed check
            try:
                if httpx.get(url + "/api/traces", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None:
                break
            time.sleep(0.1)
        else:
            raise RuntimeError(f"the service did not start: {log.read_text()}")
        if proc.poll() is not None:
            raise RuntimeError(f"the service exited: {log.read_text()}")
        yield proc, url
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def trace_bytes(seed: int, records: int = 6000) -> bytes:
    out = io.BytesIO()
    write(generate(records=records, threads=2, seed=seed), out)
    return out.getvalue()


def test_upload_view_restart_view(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with serving(data) as (_, url):
        r = httpx.post(url + "/api/traces", content=trace_bytes(1), headers=WRITE, timeout=60)
        assert r.status_code == 201, r.text
        tid = r.json()["id"]
        page = httpx.get(url + f"/t/{tid}/")
        assert page.status_code == 200 and "/static/app.js" in page.text
        assert len(httpx.get(url + f"/t/{tid}/api/trace").json()["threads"]) == 2
    with serving(data) as (_, url):
        assert [t["id"] for t in httpx.get(url + "/api/traces").json()["traces"]] == [tid]
        assert httpx.get(url + f"/t/{tid}/api/trace").status_code == 200
        svg = httpx.get(url + f"/t/{tid}/flame/0.svg")
        assert svg.status_code == 200 and "<svg" in svg.text


def test_kill_9_during_uploads_loses_nothing_acknowledged(tmp_path: Path) -> None:
    data = tmp_path / "data"
    bodies = [trace_bytes(seed, records=3000 + 500 * seed) for seed in range(12)]
    acked: list[str] = []
    lock = threading.Condition()
    with serving(data) as (proc, url):

        def send(body: bytes) -> None:
            try:
                r = httpx.post(url + "/api/traces", content=body, headers=WRITE, timeout=60)
            except httpx.TransportError:
                return  # cut off by the kill: never acknowledged
            if r.status_code in (200, 201):
                with lock:
                    acked.append(r.json()["id"])
                    lock.notify_all()

        threads = [threading.Thread(target=send, args=(b,)) for b in bodies]
        for t in threads:
            t.start()
        with lock:  # kill once three uploads are acknowledged (or give up waiting)
            lock.wait_for(lambda: len(acked) >= 3, timeout=60)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        for t in threads:
            t.join(60)
    assert len(acked) >= 3
    with serving(data) as (_, url):
        listed = {t["id"] for t in httpx.get(url + "/api/traces").json()["traces"]}
        assert set(acked) <= listed
        for tid in listed:  # everything listed opens: nothing half-written is visible
            assert httpx.get(url + f"/t/{tid}/api/trace", timeout=60).status_code == 200
        assert list((data / "staging").iterdir()) == []
        stored = {p.name for p in (data / "traces").glob("*/*")}
        assert stored == listed


def test_chunked_upload_is_cut_off_while_streaming(tmp_path: Path) -> None:
    """413 arrives while the client is still sending (no Content-Length, no end chunk)."""
    with serving(tmp_path / "data", "--max-upload", "1M") as (_, url):
        port = int(url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            sock.sendall(
                b"POST /api/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Traceview: 1\r\n"
                b"Transfer-Encoding: chunked\r\nContent-Type: application/octet-stream\r\n\r\n"
            )
            chunk = b"x" * 65536
            sent = 0
            for _ in range(40):  # 2.5 MiB offered; the body never ends
                try:
                    sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                except OSError:
                    break
                sent += len(chunk)
            answer = b""
            while b"too large" not in answer:  # headers and body may come apart
                part = sock.recv(4096)
                if not part:
                    break
                answer += part
        assert answer.startswith(b"HTTP/1.1 413"), answer[:100]
        assert b"too large" in answer
        assert httpx.get(url + "/api/traces").json()["traces"] == []
