"""Hostile uploads to a real viewer's `POST /api/open` (a `traceview view` process under a
2 GiB address-space limit). Every hostile file of issue 8 streams to disk and answers with
the new trace or one-line error JSON (400/413), and the server keeps serving the trace it had.

A gzip of real records (issue 18) is refused in one line by the ratio bound, and the memory it
took is given back. Before, an 8.9 MB upload was refused with 413 (out of memory) and left the
viewer at 4.2 GB resident: the error, raised in a worker thread, kept the frames holding the
inflated bytes alive in the idle worker. Its resident size is read from /proc (Linux), before
and after the refused upload, in a viewer of its own still showing its start trace.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from support import hostile
from support.records_gzip import repeated_records
from support.viewer_trace import viewer_trace
from traceview.readers.files import RATIO
from traceview.writer import write

SRC = Path(__file__).resolve().parents[2] / "src"
LIMIT = 2 << 30
TIMEOUT = 60.0
NOT_FILES = {"fifo-without-writer", "directory", "stdin", "stdin-zeros"}
SIZE = 2 << 20  # the gzip upload: inflates past RATIO * SIZE = 200 MB before it is refused
KEPT = 64 << 20  # resident growth allowed after the refusal (the inflated part alone: 200 MB)


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


@contextmanager
def _serving(folder: Path) -> Iterator[tuple[int, str]]:
    """A `traceview view` process showing a small start trace: (its pid, its URL)."""
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
        yield proc.pid, url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def viewer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with _serving(tmp_path_factory.mktemp("viewer")) as (_, url):
        yield url


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


def resident(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="needs /proc")
def test_refused_gzip_open_gives_its_memory_back(tmp_path: Path) -> None:
    import httpx

    body = repeated_records(SIZE)
    with _serving(tmp_path) as (pid, url), httpx.Client(base_url=url, timeout=120) as client:
        headers = {"X-Traceview": "1", "Origin": url.rstrip("/"), "X-Filename": "records.trace.gz"}
        assert client.get("/api/trace").status_code == 200
        before = resident(pid)
        r = client.post("/api/open", content=body, headers=headers)
        after = resident(pid)
        assert r.status_code == 400, (r.status_code, r.text[:300])
        error = r.json()["error"]
        assert "decompression bomb" in error and f"{RATIO} times" in error and "\n" not in error
        assert after - before < KEPT, f"{(after - before) >> 20} MiB still resident"
        assert client.get("/api/trace").json()["source"].endswith("start.trace")  # still serving
