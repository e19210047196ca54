"""`traceview view` (server start-up, URL, Ctrl-C) and its helpers."""

from __future__ import annotations

import io
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from support.viewer_trace import EVIL_THREAD, viewer_trace
from traceview.cli import view
from traceview.writer import write

HANG_GUARD = 300  # seconds: only stops a stuck test; no time is asserted


def test_display_detection(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert not view.has_display()
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    assert view.has_display()


def test_bind_and_url() -> None:
    sock = view.bind("127.0.0.1", 0)
    try:
        port = sock.getsockname()[1]
        assert port > 0
        assert view.url_for("127.0.0.1", port) == f"http://127.0.0.1:{port}/"
        assert view.url_for("0.0.0.0", 80) == "http://127.0.0.1:80/"
        assert view.url_for("::1", 80) == "http://[::1]:80/"
    finally:
        sock.close()


def test_view_serves_until_ctrl_c(tmp_path: Path) -> None:
    trace = viewer_trace()
    trace.validate()
    buf = io.BytesIO()
    write(trace, buf)
    path = tmp_path / "t.trace"
    path.write_bytes(buf.getvalue())
    proc = subprocess.Popen(
        [sys.executable, "-m", "traceview", str(path), "--no-browser"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = None
        for line in proc.stdout:
            m = re.search(r"serving at (http://127\.0\.0\.1:\d+/)", line)
            if m:
                url = m.group(1)
                break
        assert url is not None
        with httpx.Client(base_url=url, trust_env=False, timeout=30) as client:
            info = client.get("/api/trace").json()
            assert info["threads"][1]["name"] == EVIL_THREAD
            assert client.get("/").status_code == 200
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=HANG_GUARD)  # a stuck server fails the test; no time asserted
        assert code == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_bad_file_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.trace"
    bad.write_bytes(b"garbage" * 10)
    proc = subprocess.run(
        [sys.executable, "-m", "traceview", str(bad), "--no-browser"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1
