"""A gzip of real records posted to a real viewer's `POST /api/open` (issue 18): refused in one
line by the ratio bound, and the memory it took is given back. Before, an 8.9 MB upload was
refused with 413 (out of memory) and left the viewer at 4.2 GB resident: the error, raised
in a worker thread, kept the frames holding the inflated bytes alive in the idle worker.

The viewer runs as `traceview view` under a 2 GiB address-space limit; its resident size is
read from /proc (Linux), before and after the refused upload.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.records_gzip import repeated_records
from support.viewer_trace import viewer_trace
from traceview.readers.files import RATIO
from traceview.writer import write

SRC = Path(__file__).resolve().parents[2] / "src"
LIMIT = 2 << 30
SIZE = 2 << 20  # the upload: inflates past RATIO * SIZE = 200 MB before it is refused
KEPT = 64 << 20  # resident growth allowed after the refusal (the inflated part alone: 200 MB)

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="needs /proc")


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def resident(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


@pytest.fixture(scope="module")
def viewer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, str]]:
    folder = tmp_path_factory.mktemp("viewer-gzip")
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


def test_refused_gzip_open_gives_its_memory_back(viewer: tuple[int, str]) -> None:
    import httpx

    pid, url = viewer
    body = repeated_records(SIZE)
    headers = {"X-Traceview": "1", "Origin": url.rstrip("/"), "X-Filename": "records.trace.gz"}
    with httpx.Client(base_url=url, timeout=120) as client:
        assert client.get("/api/trace").status_code == 200
        before = resident(pid)
        r = client.post("/api/open", content=body, headers=headers)
        after = resident(pid)
        assert r.status_code == 400, (r.status_code, r.text[:300])
        error = r.json()["error"]
        assert "decompression bomb" in error and f"{RATIO} times" in error and "\n" not in error
        assert after - before < KEPT, f"{(after - before) >> 20} MiB still resident"
        assert client.get("/api/trace").json()["source"].endswith("start.trace")  # still serving
