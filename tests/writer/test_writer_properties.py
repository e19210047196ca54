"""Property tests: any trace the model allows (odd names, ids, unbalanced calls, µs fractions,
times past 2^32 µs) survives write -> read -> write for every V1 variant."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.writer_out import written
from traceview import load
from traceview.model import (
    Clock,
    EventTable,
    Header,
    MethodTable,
    ThreadTable,
    Trace,
    Variant,
    thread_index_dtype,
)

LETTERS = st.characters(
    codec="utf-8", exclude_categories=("Cc", "Cs", "Zl", "Zp", "Zs", "Co", "Cn")
)
NAME = st.text(LETTERS, min_size=1, max_size=12)


@st.composite
def traces(draw: st.DrawFn) -> Trace:
    n_threads = draw(st.integers(1, 4))
    tids = draw(
        st.lists(st.integers(1, 0xFFFF), min_size=n_threads, max_size=n_threads, unique=True)
    )
    n_methods = draw(st.integers(1, 6))
    ids = draw(
        st.lists(st.integers(0, 0x3FFF_FFFF), min_size=n_methods, max_size=n_methods, unique=True)
    )
    n = draw(st.integers(0, 40))
    thread = np.array(
        draw(st.lists(st.integers(0, n_threads - 1), min_size=n, max_size=n)), dtype=np.int64
    )
    steps = np.array(
        draw(st.lists(st.integers(0, 1 << 29), min_size=n, max_size=n)), dtype=np.int64
    )
    clocks: list[Clock] = ["dual", "thread-cpu", "wall"]
    clock = draw(st.sampled_from(clocks))
    cpu = np.zeros(n, dtype=np.int64)
    for t in range(n_threads):  # per-thread non-decreasing, any ns, steps < 2^31 µs (unwrappable)
        sel = thread == t
        cpu[sel] = np.cumsum(steps[sel]) * 1000 + draw(st.integers(0, 999))
    wall = cpu * 2 + 7000
    names = [draw(NAME) for _ in range(n_methods)]
    methods = MethodTable(
        id=np.array(ids, dtype=np.uint64) * np.uint64(4),
        class_name=tuple(f"com.x.{s}" for s in names),
        name=tuple(draw(NAME) for _ in range(n_methods)),
        signature=tuple("()V" for _ in range(n_methods)),
        source_file=tuple(draw(st.sampled_from(["", "A.java", "é.kt"])) for _ in range(n_methods)),
        line=np.full(n_methods, -1, dtype=np.int32),
        declared=np.ones(n_methods, dtype=bool),
    )
    events = EventTable(
        thread=thread.astype(thread_index_dtype(n_threads)),
        method=np.array(
            draw(st.lists(st.integers(0, n_methods - 1), min_size=n, max_size=n)), dtype=np.int32
        ),
        action=np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), dtype=np.uint8),
        cpu=cpu if clock != "wall" else None,
        wall=wall if clock != "thread-cpu" else None,
    )
    threads = ThreadTable(
        id=np.array(tids, dtype=np.int64),
        name=tuple(draw(st.one_of(st.none(), NAME)) for _ in tids),
    )
    header = Header(variant="regular", version=3 if clock == "dual" else 2, clock=clock)
    trace = Trace(header=header, threads=threads, methods=methods, events=events)
    trace.validate()
    return trace


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trace=traces(), variant=st.sampled_from(["regular", "streaming", "data-only"]))
def test_write_read_write(trace: Trace, variant: Variant) -> None:
    first = written(trace, variant)
    back = load(first)
    back.validate()
    assert written(back, variant) == first
    ev, bk = trace.events, back.events
    assert np.array_equal(ev.action, bk.action)
    assert np.array_equal(trace.threads.id[ev.thread], back.threads.id[bk.thread])
    assert np.array_equal(trace.methods.id[ev.method], back.methods.id[bk.method])
    # a bare data section cannot say which clock its one time is: compare by position
    for ours, theirs in zip(ev.clocks, bk.clocks, strict=True):
        assert np.array_equal(ev.time(ours) // 1000 * 1000, bk.time(theirs))
    if variant == "regular":
        named = {int(i): n for i, n in zip(trace.threads.id, trace.threads.name, strict=True) if n}
        assert {
            int(i): n for i, n in zip(back.threads.id, back.threads.name, strict=True) if n
        } == named
        used = np.unique(ev.method)
        assert [trace.methods.name[i] for i in used] == [
            back.methods.name[int(np.flatnonzero(back.methods.id == trace.methods.id[i])[0])]
            for i in used
        ]
