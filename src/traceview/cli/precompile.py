"""Fill numba's cache with the viewer's compiled kernels, in a process of its own: the viewer
starts it (`start()`) as it opens a trace big enough to need them (`worth_it`, or `needed`
once a mid-sized file is loaded), so that after a fresh install the kernels compile on the
other core while the trace loads and the first screen is drawn, never on the path of a
request; with the cache already filled it only loads them (about a second of CPU) and exits.
A small trace (the demo, a 1.2 MB recording of 70k records) starts none: its first screens
need no kernel, and a later flame graph loads (or, the first time, compiles) its own.

`python -m traceview.cli.precompile` runs the viewer's compiled passes once on a tiny
generated trace read back through the reader, so each kernel is compiled for the argument
types real traces give it (thread rows of one byte, 4-byte event rows, the reader's strided
record fields).
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys

BIG_FILE = 4 << 20  # bytes: a trace this big (SMALL records of 14 bytes fill 1.8 MiB) is large


def worth_it(path: str) -> bool:
    """Whether to fill the cache while `path` loads: a file that cannot be a small trace
    (analysis/small.py: gzip counted at an eighth), or standard input (no size); a smaller
    one is decided once loaded (`needed`), as the gzipped demo is."""
    try:
        size = os.path.getsize(path) * (8 if path.endswith(".gz") else 1)
    except OSError:
        return True
    return path == "-" or size >= BIG_FILE


def needed(records: int, threads: int) -> bool:
    """Whether a loaded trace's viewer will run compiled kernels soon: not a small trace's
    (its first screens are numpy's)."""
    from traceview.analysis.small import is_small

    return not is_small(records, threads)


def start() -> subprocess.Popen[bytes] | None:
    """The background process filling numba's cache (None when it cannot be started)."""
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "traceview.cli.precompile"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        return None


def compile_all() -> None:
    """Run every compiled pass the viewer uses on a tiny trace (their machine code is then in
    numba's cache)."""
    import traceview.analysis.small as small
    import traceview.readers.v1.clocks as clocks
    from traceview.analysis.direct import direct_profile
    from traceview.analysis.kernels import levels
    from traceview.analysis.session import Session
    from traceview.readers import load
    from traceview.synth import generate
    from traceview.writer import write

    small.SMALL = -1  # the compiled passes even on this tiny trace
    clocks._SAMPLE = 0  # the reader's compiled decoding from the first record
    raw = io.BytesIO()
    write(generate(records=4000, threads=3, seed=1), raw, variant="regular")
    s = Session(load(raw.getvalue()))
    direct_profile(s.trace)
    q = s.query()
    s.profile(q)
    s.flame(q, "graph")
    s.flame(q, "bottomup")
    s.timeline().tile(0, 0, 0)
    levels.load()
    lo, hi = s.span
    ranged = s.query(time_range=s.time_range((hi - lo) // 4, (hi - lo) // 2))
    s.profile(ranged)
    s.flame(ranged, "graph")
    s.frames(16_000_000)


if __name__ == "__main__":
    with contextlib.suppress(OSError):
        os.nice(10)  # behind the viewer's own work
    compile_all()
