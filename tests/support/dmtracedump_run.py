"""Run Debian's dmtracedump and ours side by side, for the compatibility tests.

`debian(args)` runs the installed binary (tests skip when it is absent: `needs_debian`);
`ours(args)` runs `traceview dmtracedump` in-process and returns its stdout bytes.
`comparable(text)` cuts every line at its first tab: dmtracedump glues what follows a key
line's fourth field onto the signature, so the report of a variant without key lines (V2,
whose names come from packets) differs there from the regular file's (it is always the last
thing on a line, after every number).
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from traceview.cli import main

needs_debian = pytest.mark.skipif(
    shutil.which("dmtracedump") is None, reason="Debian's dmtracedump not installed"
)


def debian(args: list[str | Path], cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    """Debian's dmtracedump on `args` (stdout and stderr as bytes)."""
    return subprocess.run(
        ["dmtracedump", *map(str, args)], capture_output=True, cwd=cwd, timeout=300
    )


def ours(args: list[str | Path], capsys: pytest.CaptureFixture[str]) -> tuple[int, bytes, str]:
    """`traceview dmtracedump ARGS`: (exit status, stdout bytes, stderr text)."""
    buf = io.BytesIO()
    out = io.TextIOWrapper(buf, encoding="utf-8", write_through=True)
    saved = sys.stdout
    sys.stdout = out
    try:
        status = main(["dmtracedump", *map(str, args)])
        out.flush()
    finally:
        sys.stdout = saved
    return status, buf.getvalue(), capsys.readouterr().err


_TAIL = re.compile(rb"\t[^\n]*")


def comparable(text: bytes) -> bytes:
    """`text` with every line cut at its first tab."""
    return _TAIL.sub(b"", text)


def accepted(run: subprocess.CompletedProcess[bytes]) -> bool:
    """dmtracedump read the whole file: exit 0, no warning (it warns and stops early on a
    record size it misreads)."""
    return run.returncode == 0 and not run.stderr.strip()
