"""Who a trace is: `trace_id`, the SHA-256 of its bytes (hex), and the `date` partition it
goes to — computed where the bytes are (`dataset add`, `traceview export`, `sql`'s cache, the
Spark ingest, the service), the same way everywhere.

A regular file's id hashes its bytes as stored (a gzip file's compressed bytes); a split
trace (`name.key` + `name.data`, named by their base) hashes the key file's bytes followed by
the data file's; one process's dump of an ANR report or bugreport (`--process`) hashes the
report's id and the process (`process_id`). The date is the trace's start (UTC) when the
header records a plausible one (an epoch time in 2005-2099), else the file's modification
time (UTC).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from traceview.model import Header
from traceview.readers.v1.split import find_pair

_PLAUSIBLE_US = (1_104_537_600 * 10**6, 4_102_444_800 * 10**6)  # 2005-01-01 .. 2100-01-01


@dataclass(frozen=True)
class Identity:
    """A trace file's `trace_id`, `name` (no folders), `size` (bytes) and `mtime` (seconds
    since the epoch)."""

    trace_id: str
    name: str
    size: int
    mtime: float


def trace_id(data: bytes | memoryview) -> str:
    """The id of a trace's bytes."""
    return hashlib.sha256(data).hexdigest()


def process_id(trace_id: str, process: str | int) -> str:
    """The id of one process's dump in an ANR report or bugreport of id `trace_id`."""
    text = f"{trace_id}:process={process}"
    return hashlib.sha256(text.encode("utf-8", "backslashreplace")).hexdigest()


def identify(path: Path) -> Identity:
    """The identity of the trace file at `path` (or of the split pair it names); OSError
    when neither can be read."""
    if path.is_file() or find_pair(path) is None:
        with path.open("rb") as f:
            digest = hashlib.file_digest(f, "sha256").hexdigest()
            st = os.fstat(f.fileno())
        return Identity(digest, path.name, st.st_size, st.st_mtime)
    key, data = find_pair(path) or (path, path)
    h = hashlib.sha256()
    size = 0
    for part in (key, data):
        with part.open("rb") as f:
            hashlib.file_digest(f, lambda: h)  # one digest over both files, key first
            size += os.fstat(f.fileno()).st_size
    return Identity(h.hexdigest(), path.name, size, data.stat().st_mtime)


def trace_date(header: Header | None, mtime: float) -> str:
    """The `date` partition (yyyy-mm-dd, UTC) of a trace with `header` (None: not read)
    whose file was last modified at `mtime` (seconds since the epoch)."""
    start = header.start_time_us if header is not None else None
    if start is not None and _PLAUSIBLE_US[0] <= start < _PLAUSIBLE_US[1]:
        return datetime.fromtimestamp(start / 1e6, UTC).strftime("%Y-%m-%d")
    return datetime.fromtimestamp(max(mtime, 0.0), UTC).strftime("%Y-%m-%d")


__all__ = ["Identity", "identify", "process_id", "trace_date", "trace_id"]
