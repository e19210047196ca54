"""Checking an upload before the service keeps it: read and analyse the file in a child process
with a memory cap (RLIMIT_AS) and a time limit, so a hostile or huge trace (or mapping) is
reported, never hung on, and cannot take the server's memory or its event loop.

`probe(path, limits)` runs `python -m traceview.service.probe PATH BYTES trace`; the child reads the
trace, builds its call table and whole-trace profile (what the viewer asks first) and prints
one JSON line: the facts the index lists, or the one-line reason the file is not a readable
trace. `probe(path, limits, "mapping")` parses a ProGuard/R8 mapping the same way (the parser
holds the GIL: in a thread of the server it stalled every request while it ran).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from typing import Any, Literal

BAD_TRACE = 3  # the child's exit status when the file is not a readable trace
NO_MEMORY = 4


@dataclass(frozen=True)
class Limits:
    """How long (seconds) and how much address space (bytes) one analysis may take."""

    seconds: float = 120.0
    memory: int = 6 << 30


class Rejected(Exception):
    """The upload is not a trace the service can keep; the message is one line for the user."""


def probe(path: str, limits: Limits, kind: Literal["trace", "mapping"] = "trace") -> dict[str, Any]:
    """The facts of the trace at `path` (variant, threads, records, duration_us), or of the
    mapping (classes, notes); Rejected with the reason when it cannot be read or analysed
    within `limits`."""

    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "traceview.service.probe", path, str(limits.memory), kind],
            capture_output=True,
            timeout=limits.seconds,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise Rejected(f"analysis took longer than {limits.seconds:g} s") from None
    out = done.stdout.decode("utf-8", "replace").strip().splitlines()
    line = out[-1] if out else ""
    if done.returncode == 0:
        facts: dict[str, Any] = json.loads(line)
        return facts
    if done.returncode == BAD_TRACE and line:
        raise Rejected(line)
    err = done.stderr.decode("utf-8", "replace")
    if done.returncode in (NO_MEMORY, -9) or "MemoryError" in err or "emory alloc" in err:
        raise Rejected(f"analysis needs more than {limits.memory >> 20} MiB of memory")
    raise Rejected(f"analysis failed (status {done.returncode})")


def facts(path: str) -> dict[str, Any]:
    """Read and analyse `path` (in the child): what the index lists about it."""
    from traceview.analysis.session import Session
    from traceview.readers import load

    session = Session(load(path))
    session.profile(session.query())  # builds the call table: the viewer's first need
    trace = session.trace
    return {
        "variant": str(trace.header.variant),
        "threads": len(trace.threads),
        "records": len(trace.events),
        "duration_us": round((session.end - session.origin) / 1000, 1),
    }


def mapping_facts(path: str) -> dict[str, Any]:
    """Parse the mapping at `path` (in the child): its class count and skipped-line notes."""
    from traceview.readers.mapping import read_mapping

    mapping = read_mapping(path)
    return {"classes": len(mapping.classes), "notes": len(mapping.notes)}


def _child(argv: list[str]) -> int:
    import resource  # the cap is set here, not in a preexec_fn: the server forks from threads

    resource.setrlimit(resource.RLIMIT_AS, (int(argv[1]), int(argv[1])))
    os.nice(10)  # checking uploads yields the CPU to the server answering pages
    from traceview.model import TraceError, printable

    try:
        check = mapping_facts if argv[2:] == ["mapping"] else facts
        print(json.dumps(check(argv[0])))
    except MemoryError:
        return NO_MEMORY
    except TraceError as exc:
        first = str(exc).splitlines()[0] if str(exc) else "not a readable trace"
        # the staged file's path means nothing to the uploader: drop it
        print(printable(first.replace(f"{argv[0]}: ", "").replace(argv[0], "the upload")))
        return BAD_TRACE
    except (ValueError, IndexError, KeyError, OverflowError) as exc:
        print(printable(f"not a readable trace ({exc})".splitlines()[0]))
        return BAD_TRACE
    return 0


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1:]))
