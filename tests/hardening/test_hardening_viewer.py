"""Every hostile file of issue 8 uploaded to a real viewer's `POST /api/open` (a `traceview
view` process under a 2 GiB address-space limit): each upload streams to disk and answers with
the new trace or one-line error JSON (400/413), and the server keeps serving the trace it had."""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from support import hostile
from support.viewer_trace import viewer_trace
from traceview.writer import write

SRC = Path(__file__).resolve().parents[2] / "src"
LIMIT = 2 << 30
TIMEOUT = 60.0
NOT_FILES = {"fifo-without-writer", "directory", "stdin", "stdin-zeros"}


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


@pytest.fixture(scope="module")
def viewer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("viewer")
    start = folder / "start.trace"
    write(viewer_trace(), start)
    env = {**os.environ, "PYTHONPATH": str(SRC), "OPENBLAS_NUM_THREADS": "1", "TMPDIR": str(folder)}
    env.pop("DISPLAY", None)
    cmd = [sys.executable, "-m", "traceview", "view", str(start), "--no-browser"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, env=env, preexec_fn=_limit, text=True)
    assert proc.stdout is not None
    url = ""
    for line in proc.stdout:
        m = re.search(r"serving at (http://\S+/)", line)
        if m:
            url = m.group(1)
            break
    try:
        assert url, "the viewer did not start"
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    cases = hostile.hostile_files(tmp_path_factory.mktemp("hostile-uploads"))
    return {k: Path(p) for k, (p, _) in cases.items() if k not in NOT_FILES}


def _chunks(path: Path) -> Iterator[bytes]:
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            yield chunk


def test_every_hostile_upload_gets_a_result_or_one_line(
    viewer: str, files: dict[str, Path]
) -> None:
    import httpx

    headers = {"X-Traceview": "1", "Origin": viewer.rstrip("/")}
    with httpx.Client(base_url=viewer, timeout=TIMEOUT) as client:
        for name, path in sorted(files.items()):
            h = {
                **headers,
                "X-Filename": "upload.trace",
                "Content-Length": str(path.stat().st_size),
            }
            r = client.post("/api/open", content=_chunks(path), headers=h)
            assert r.status_code in (200, 400, 413), (name, r.status_code, r.text[:300])
            if r.status_code != 200:
                error = r.json()["error"]
                assert error and "\n" not in error and "Traceback" not in error, (name, error)
            assert client.get("/api/trace").status_code == 200, name  # still serving
