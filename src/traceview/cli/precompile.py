"""Fill numba's cache with the viewer's compiled kernels, in a process of its own: the viewer
starts it (`start()`) as it opens a trace big enough to need them (`worth_it`, or `needed`
once a mid-sized file is loaded), so that after a fresh install the kernels compile on the
other core while the trace loads and the first screen is drawn, never on the path of a
request; with the cache already filled it only loads them (about a second of CPU) and exits.
A small trace (the demo, a 1.2 MB recording of 70k records) starts none: its first screens
run native kernels only, and a later flame graph loads (or, the first time, compiles) its own.

`python -m traceview.cli.precompile` runs the viewer's compiled passes once on a tiny
generated trace read back through the reader, so each kernel is compiled for the argument
types real traces give it (thread rows of one byte, 4-byte event rows, the reader's strided
record fields). `python -m traceview.cli.precompile --native DEST` builds the native objects
the install ships (`build_native`, run by setup.py).
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from traceview.model import Clock, Trace

PARTS = 2  # processes building the native objects at install (at most one per core)
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
    lo, hi = s.span
    ranged = s.query(time_range=s.time_range((hi - lo) // 4, (hi - lo) // 2))
    s.profile(ranged)
    s.flame(ranged, "graph")
    s.frames(16_000_000)


def build_native(dest: str) -> int:
    """Build the native objects (analysis/kernels/native.py) of the kernels `-r`,
    `dmtracedump`, `stats`, `info`, simpleperf's reader and the viewer's first screens (the
    call table, the profiles, exclusive times, the timeline's levels) run, for the argument
    types real traces give them, and copy them into `dest`: the install runs this
    (setup.py) so that they ship with the package and no command compiles on its first run
    (the objects hold the host CPU in their key, so a wheel taken to another machine builds
    its own again). Run on every record layout and clock the writer makes, with few and many
    threads, read whole and streamed, in a process per core (numba compiles on one).
    Returns the number of objects copied; RuntimeError when a part fails."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "NUMBA_CACHE_DIR": tmp}  # numba's own files stay out of `dest`
        n = max(1, min(PARTS, os.cpu_count() or 1))
        cmd = [sys.executable, "-m", "traceview.cli.precompile", "--native-part"]
        parts = [
            subprocess.Popen([*cmd, f"{k}/{n}", tmp], env=env, stdin=subprocess.DEVNULL)
            for k in range(n)
        ]
        if [p.wait() for p in parts] != [0] * n:
            raise RuntimeError("a part of the native build failed")
        built = sorted((Path(tmp) / "traceview" / "native").glob("*.o"))
        Path(dest).mkdir(parents=True, exist_ok=True)
        for old in Path(dest).glob("*.o"):  # (an earlier build's, of other sources)
            old.unlink()
        for f in built:
            shutil.copyfile(f, Path(dest) / f.name)
    return len(built)


def _run_native_kernels(tmp: Path, part: int, parts: int) -> None:
    """Part `part` of `parts` of `build_native`'s runs (the sizes are shared out: the
    typings a layout gives differ by them), its traces written in `tmp`."""
    import traceview.analysis.kernels.native as native
    import traceview.analysis.small as small
    import traceview.readers.v1.clocks as clocks
    from traceview.analysis.direct import direct_profile
    from traceview.analysis.filters import time_range
    from traceview.analysis.session import Session
    from traceview.cli import main
    from traceview.readers import load
    from traceview.readers.simpleperf.records import lengths
    from traceview.synth import generate
    from traceview.writer import write

    small.SMALL = -1  # the compiled passes even on these small traces
    clocks._SAMPLE = 0  # the reader's compiled decoding from the first record
    native.SHIPPED = tmp / "none"  # every object built here, none taken from an earlier build
    layouts: list[tuple[int, Clock]] = [
        (1, "wall"),
        (1, "thread-cpu"),
        (2, "wall"),
        (2, "thread-cpu"),
        (3, "dual"),
    ]
    # threads (1 or 2 bytes a thread row), methods declared (2 or 4 bytes a method row)
    sizes = [(threads, methods) for threads in (3, 300) for methods in (0, 0x8000)]
    for (version, clock), (threads, methods) in [
        (lay, n) for n in sizes[part::parts] for lay in layouts
    ]:
        if version == 1 and threads > 255:
            continue  # (a V1 thread id is a byte)
        path = str(tmp / f"v{version}-{clock}-{threads}-{methods}.trace")
        trace = _declaring(
            generate(records=20 * threads + 4000, threads=threads, seed=1, clock=clock), methods
        )
        write(_mismatched(trace), path, variant="regular", version=version)
        direct_profile(load(path))  # (a thread repaired)
        write(trace, path, variant="regular", version=version)
        direct_profile(load(path))
        s = Session(load(path))
        s.profile(s.query())
        lo, hi = s.span
        s.profile(s.query(time_range=s.time_range((hi - lo) // 4, (hi - lo) // 2)))
        for t in range(len(s.trace.threads)):  # (a tile's index: a thread's, typed alike)
            s.timeline().tile(t, 0, 0)
        for each in s.trace.clocks:
            s.calls.excl(each)
            time_range(s.calls, lo, (lo + hi) // 2, each)  # the overlap rule
        with open(os.devnull, "w") as out, contextlib.redirect_stdout(out):
            for command in (["-r", path], ["dmtracedump", path]):
                main(command)
    if part == 0:
        lengths(b"\0\0\0\0", 0)  # simpleperf's length chain: a read-only buffer, and not
        lengths(memoryview(bytearray(4)), 0)


def _mismatched(trace: Trace) -> Trace:
    """`trace` with its last exit naming another method than its enter (its thread is
    repaired: `direct._repaired`)."""
    import dataclasses

    ev = trace.events
    method = ev.method.copy()
    (exits,) = (ev.action == 1).nonzero()
    if len(exits) and len(trace.methods) > 1:
        method[exits[-1]] = (int(method[exits[-1]]) + 1) % len(trace.methods)
    return dataclasses.replace(trace, events=dataclasses.replace(ev, method=method))


def _declaring(trace: Trace, n: int) -> Trace:
    """`trace` with methods no record calls added to its key, up to `n` (a large app's trace
    declares tens of thousands: 32,768 or more make the events' method rows 4 bytes)."""
    import dataclasses

    import numpy as np

    m = trace.methods
    extra = max(0, n - len(m))
    if not extra:
        return trace
    first = (int(m.id.max()) | 3) + 1  # (V1 ids keep their two low bits clear)
    more = ("",) * extra
    table = dataclasses.replace(
        m,
        id=np.concatenate([m.id, first + 4 * np.arange(extra, dtype=np.uint64)]),
        class_name=m.class_name + ("Unused",) * extra,
        name=m.name + tuple(f"m{i}" for i in range(extra)),
        signature=m.signature + ("()V",) * extra,
        source_file=m.source_file + more,
        line=np.concatenate([m.line, np.full(extra, -1, dtype=m.line.dtype)]),
        declared=np.concatenate([m.declared, np.ones(extra, dtype=bool)]),
        obfuscated=None,
        key_line=None,
    )
    return dataclasses.replace(trace, methods=table)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--native"]:
        sys.exit(0 if build_native(sys.argv[2]) else 1)
    if sys.argv[1:2] == ["--native-part"]:
        k, n = (int(x) for x in sys.argv[2].split("/"))
        _run_native_kernels(Path(sys.argv[3]), k, n)
        sys.exit(0)
    with contextlib.suppress(OSError):
        os.nice(10)  # behind the viewer's own work
    compile_all()
