"""Gzip of real records (issue 18): a valid trace whose records repeat compresses about 300
times, so a 1 MB file inflated to 300 MB and the CLI took 2.4 GB. Gzip output is bounded by
`--max-size` and by `RATIO` times the stream's size: one line, exit 2, memory bounded.

Peak memory is the resident high-water mark of the command itself, read by a small parent
process from `getrusage(RUSAGE_CHILDREN)` (what `/usr/bin/time -v` reports), not a clock.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc
import zlib
from pathlib import Path

import pytest

import traceview
from support.records_gzip import REPEATS, repeated_records
from traceview.model import TraceError
from traceview.readers.files import RATIO

SRC = Path(__file__).resolve().parents[2] / "src"
TIMEOUT = 120
PEAK = 400 << 20  # bytes resident at most (the unbounded reading peaked at 2.4 GB)

MEASURED = """
import json, resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
print(json.dumps({"status": done.returncode, "stderr": done.stderr, "peak": peak}))
"""


@pytest.fixture(scope="module")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("gzip") / "records.trace.gz"
    path.write_bytes(repeated_records(1 << 20))
    return path


def run_measured(*args: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    cmd = [sys.executable, "-c", MEASURED, sys.executable, "-m", "traceview", *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    got: dict[str, object] = json.loads(done.stdout)
    return got


def test_the_file_really_is_repeated_records(bomb: Path) -> None:
    dec = zlib.decompressobj(16 + zlib.MAX_WBITS)
    inflated, rest = 0, bomb.read_bytes()
    while rest:  # counted 16 MiB at a time
        inflated += len(dec.decompress(rest, 1 << 24))
        rest = dec.unconsumed_tail
    assert inflated > RATIO * bomb.stat().st_size  # past the ratio, well under 4 GiB
    one_block = repeated_records(1)  # as compressed, but small: under RATIO_FLOOR, it is read
    assert len(traceview.load(one_block).events) == 1000 + 8 * REPEATS


@pytest.mark.parametrize(
    ("extra", "says"),
    [([], "decompression bomb"), (["--max-size", "32M"], "max_size")],
    ids=["ratio", "max-size"],
)
def test_cli_refuses_in_one_line_with_bounded_memory(
    bomb: Path, extra: list[str], says: str
) -> None:
    got = run_measured("info", str(bomb), *extra)
    stderr = str(got["stderr"])
    assert got["status"] == 2, stderr[-2000:]
    assert stderr.count("\n") == 1 and says in stderr and "Traceback" not in stderr, stderr
    assert int(str(got["peak"])) < PEAK, f"peak RSS {got['peak']} bytes"


def test_load_refuses_without_holding_the_output_twice(bomb: Path) -> None:
    limit = RATIO * bomb.stat().st_size
    tracemalloc.start()
    try:
        with pytest.raises(TraceError, match="decompression bomb"):
            traceview.load(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < limit * 1.4  # one growing buffer (+1/8 slack), never chunks and their join
