"""Real traces (V1, from the corpus) rewritten as V2 and read back: same threads, names and
per-thread records. Skips cleanly without ../shared/corpus."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

import traceview
from support.corpus import corpus_files
from traceview.model import Trace, TraceError
from traceview.readers.v2 import read
from traceview.writer.v2 import write_v2

FILES = [p for p in corpus_files() if p.stat().st_size < 8 << 20]


def load(path: Path) -> Trace:
    try:
        trace = traceview.load(path)
    except TraceError:
        pytest.skip("not a readable trace (tested by the readers)")
    if len(trace.events) == 0:
        pytest.skip("no records")
    return trace


def per_thread(trace: Trace, codes: dict[tuple[str, str, str], int]) -> list[np.ndarray]:
    """Columns (tid, method label code, action, cpu, wall) grouped by thread, each thread's
    records in its order (a stable sort by tid keeps it)."""
    ev, me = trace.events, trace.methods
    labels = zip(me.class_name, me.name, me.signature, strict=True)
    code = np.array([codes.setdefault(k, len(codes)) for k in labels], dtype=np.int64)
    tids = trace.threads.id[ev.thread.astype(np.int64)]
    order = np.argsort(tids, kind="stable")
    cols = [tids, code[ev.method], ev.action.astype(np.int64)]
    cols += [c if c is not None else np.zeros(0, np.int64) for c in (ev.cpu, ev.wall)]
    return [c[order] if len(c) else c for c in cols]


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_corpus_as_v2(path: Path) -> None:
    trace = load(path)
    clock = "dual" if len(trace.events.clocks) == 2 else trace.events.clocks[0]
    clock = "thread-cpu" if clock == "cpu" else clock
    buf = io.BytesIO()
    write_v2(trace, buf, streaming=True, clock=clock, block_records=4096)
    back = read(buf.getvalue())
    back.validate()
    assert back.header.entry_format == "beta"
    codes: dict[tuple[str, str, str], int] = {}
    want, got = per_thread(trace, codes), per_thread(back, codes)
    assert all(np.array_equal(w, g) for w, g in zip(want, got, strict=True))
    names = dict(zip(trace.threads.id.tolist(), trace.threads.name, strict=True))
    for tid, name in zip(back.threads.id.tolist(), back.threads.name, strict=True):
        assert name == names[tid]
