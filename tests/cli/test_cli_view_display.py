"""`traceview view` / `traceview demo` on a machine without a display: one line says how to open
the viewer (the URL, or a forwarded port) instead of silently opening nothing."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from support.viewer_trace import viewer_trace
from traceview.cli import view
from traceview.writer import write

HANG_GUARD = 300  # seconds: only stops a stuck test; no time is asserted

HINT = re.compile(r"no display here: open (http://\S+/) in a browser .*forward the port")


@pytest.fixture
def small_trace(tmp_path: Path) -> Path:
    buf = io.BytesIO()
    write(viewer_trace(), buf)
    path = tmp_path / "t.trace"
    path.write_bytes(buf.getvalue())
    return path


@pytest.mark.parametrize(
    ("display", "no_browser", "hint", "opened"),
    [(False, False, True, False), (True, False, False, True), (False, True, False, False)],
)
def test_hint_only_when_a_browser_was_wanted_but_cannot_open(
    small_trace: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    display: bool,
    no_browser: bool,
    hint: bool,
    opened: bool,
) -> None:
    import uvicorn

    timers: list[Any] = []

    class Timer:
        def __init__(self, delay: float, fn: Any, args: Any) -> None:
            timers.append(args)

        def start(self) -> None:
            pass

    monkeypatch.setattr(view, "threading", SimpleNamespace(Timer=Timer))
    monkeypatch.setattr(view, "has_display", lambda: display)
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)
    assert view.main([str(small_trace), *(["--no-browser"] if no_browser else [])]) == 0
    out = capsys.readouterr().out
    served = re.search(r"serving at (http://\S+/)", out)
    assert served is not None
    found = HINT.search(out)
    assert (found is not None) == hint, out
    if found:
        assert found.group(1) == served.group(1)
        assert len([line for line in out.splitlines() if "no display" in line]) == 1
    assert (timers == [(served.group(1),)]) == opened


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="display detection is X/Wayland")
def test_demo_without_display_prints_the_url_and_serves_it() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "traceview", "demo"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    # the viewer serves forever: end it if the line never comes, so the loop below meets EOF
    watchdog = threading.Timer(20, proc.kill)
    watchdog.start()
    try:
        assert proc.stdout is not None
        url = None
        for line in proc.stdout:
            m = HINT.search(line)
            if m:
                url = m.group(1)
                break
        assert url is not None, "no line saying how to open the viewer"
        with httpx.Client(base_url=url, trust_env=False, timeout=30) as client:
            assert client.get("/").status_code == 200
            assert client.get("/api/trace").json()["threads"]
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=HANG_GUARD)  # a stuck server fails the test; no time asserted
        assert code == 0
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
