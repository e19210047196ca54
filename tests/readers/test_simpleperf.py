"""The simpleperf reader on files the test writer builds: exact events, times and weights,
names, field orders other than simpleperf's, and round trips of random recordings."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import traceview
from support import simpleperf_bytes as sp
from support import simpleperf_oracle as oracle
from traceview.analysis import Session

FILES = [
    sp.file(0, "/system/lib64/libc.so", ["read", "write"]),
    sp.file(1, "/system/framework/framework.jar", ["android.os.Looper.loop", "junk symbol"]),
    sp.file(2, "[JIT app cache]", ["android.os.Looper.loop", "void com.a.B.run(int)"]),
    sp.file(3, "/apex/com.android.art/lib64/libc.so", ["read"]),
    sp.file(4, "[kernel.kallsyms]", []),
]
LOOP = sp.Frame(1, 0)
READ = sp.Frame(0, 0)
WRITE = sp.Frame(0, 1)


def codes(trace: traceview.Trace) -> set[str]:
    return {d.code for d in trace.diagnostics}


def labels(trace: traceview.Trace) -> list[str]:
    return [trace.methods.label(m) for m in range(len(trace.methods))]


def events(trace: traceview.Trace) -> list[tuple[int, int, str, int, int]]:
    ev, th = trace.events, trace.threads
    assert ev.cpu is not None and ev.wall is not None
    return [
        (int(th.id[ev.thread[i]]), int(ev.action[i]), trace.methods.label(int(ev.method[i])),
         int(ev.cpu[i]), int(ev.wall[i]))
        for i in range(len(ev))
    ]  # fmt: skip


def test_events_times_and_weights() -> None:
    data = sp.recording(
        [
            sp.meta(["cpu-clock", "sched:sched_switch"], "com.a", True),
            *FILES,
            sp.thread(7, 7, "main"),
            sp.sample(1_000_000, 7, [READ, LOOP], 250_000),
            sp.sample(1_250_000, 7, [WRITE, LOOP], 250_000),
            sp.sample(1_300_000, 7, [WRITE, LOOP], 1, event=1),  # goes off the CPU here
            sp.sample(2_500_000, 7, [LOOP], 250_000),  # back on at 2.25 ms
            sp.lost(4, 0),
        ]
    )
    trace = traceview.load(data)
    trace.validate()
    assert trace.header.event_types == ("cpu-clock", "sched:sched_switch")
    assert trace.header.pid == 7 and trace.header.sampling_interval_us == 250.0
    assert codes(trace) == set()
    loop, read, write = "android.os.Looper.loop", "read (libc.so)", "write (libc.so)"
    # the first slice began 250 µs before the first sample; an off-CPU gap goes to the stack
    # the thread stopped in (the sched_switch sample's), until the next slice began
    # (wall times from that first slice: CLOCK_MONOTONIC 750 µs)
    assert events(trace) == [
        (7, 0, loop, 0, 0),
        (7, 0, read, 0, 0),
        (7, 1, read, 250_000, 250_000),
        (7, 0, write, 250_000, 250_000),
        (7, 1, write, 500_000, 1_500_000),
        (7, 1, loop, 750_000, 1_750_000),
    ]
    assert trace.header.monotonic_offset_ns == 750_000
    assert trace.header.start_time_us == 750
    s = Session(trace)
    prof = s.profile(s.query(clock="cpu"))
    names = labels(trace)
    assert int(prof.excl["cpu"][names.index(write)]) == 250_000
    assert int(prof.excl["wall"][names.index(write)]) == 1_250_000  # 1 ms of it off the CPU


def test_names() -> None:
    chain = [
        sp.Frame(4, -1, 0xFFFF_FFFF_8100_0000),  # kernel, no symbols
        sp.Frame(2, 1),  # JIT-compiled Java with a signature
        sp.Frame(1, 1),  # a non-Java symbol in a jar
        sp.Frame(3, 0),  # read in another libc.so
        sp.Frame(0, 0),
        sp.Frame(2, 0),  # loop, JIT-compiled
        sp.Frame(0, 7, 0x1234),  # symbol id past the table
        sp.Frame(9, 0, 0x42),  # a file no record gives
        LOOP,
    ]
    trace = traceview.load(sp.recording([*FILES, sp.sample(10, 1, chain)]))
    trace.validate()
    assert set(labels(trace)) == {
        "[kernel.kallsyms]+0xffffffff81000000",
        "com.a.B.run (int)",
        "junk symbol (framework.jar)",
        "read (/apex/com.android.art/lib64/libc.so)",
        "read (/system/lib64/libc.so)",
        "android.os.Looper.loop",
        "libc.so+0x1234",
        "[file 9]+0x42",
    }
    row = labels(trace).index("com.a.B.run (int)")
    assert (trace.methods.class_name[row], trace.methods.name[row]) == ("com.a.B", "run")
    assert "unknown-file" in codes(trace) and "no-meta-info" in codes(trace)


def test_interpreted_frames_are_java_anywhere() -> None:
    odd = sp.file(5, "/data/app/x/oat/arm64/anon.bin", ["com.x.Y.z"])
    trace = traceview.load(sp.recording([odd, sp.sample(1, 1, [sp.Frame(5, 0, 8, 1)])]))
    assert labels(trace) == ["com.x.Y.z"]
    plain = traceview.load(sp.recording([odd, sp.sample(1, 1, [sp.Frame(5, 0, 8)])]))
    assert labels(plain) == ["com.x.Y.z (anon.bin)"]


def test_estimated_weights_without_time_events() -> None:
    data = sp.recording(
        [sp.meta(["cpu-cycles"]), *FILES]
        + [sp.sample(1000 * k, 1, [READ], 123_456) for k in range(1, 6)]
    )
    trace = traceview.load(data)
    assert "estimated-weights" in codes(trace)
    assert trace.header.sampling_interval_us == 1.0
    assert trace.events.cpu is not None and int(trace.events.cpu.max()) == 5000


def test_other_field_orders_read_the_same() -> None:
    """Fields in reverse order, an unknown varint and an unknown string field, a two-byte
    key: every walk gives what simpleperf's own layout gives."""
    chain = [READ, LOOP]
    plain = sp.recording([*FILES, sp.sample(5, 3, chain, 250_000)])
    entries = b"".join(
        sp.blob(3, sp.num(3, f.symbol) + sp.num(9, 1) + sp.num(2, f.file) + sp.num(1, f.vaddr))
        for f in chain
    )
    body = sp.num(5, 0) + sp.num(4, 250_000) + entries + sp.num(2, 3) + sp.num(1, 5)
    odd = sp.recording([*FILES, sp.blob(1, body + sp.text(7, "x") + sp.num(20, 1))])
    a, b = traceview.load(plain), traceview.load(odd)
    assert events(a) == events(b)


frames = st.lists(
    st.tuples(st.integers(0, 4), st.integers(-1, 2), st.integers(0, 1 << 40)), max_size=12
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 3), st.integers(0, 10**12), frames, st.integers(0, 1)),
        max_size=40,
    )
)
def test_random_recordings_match_the_oracle(
    draws: list[tuple[int, int, list[tuple[int, int, int]], int]],
) -> None:
    records = [sp.meta(["cpu-clock", "sched:sched_switch"]), *FILES]
    records += [sp.thread(t, 1, f"t{t}") for t in (1, 2, 3)]
    for tid, time, chain, event in draws:
        fs = [sp.Frame(f, k, v) for f, k, v in chain]
        records.append(sp.sample(time, tid, fs, 1 if event else 250_000, event))
    data = sp.recording(records)
    trace = traceview.load(data)
    trace.validate()
    rec = oracle.read(data)
    want = oracle.events(rec)
    got: dict[int, list[tuple[int, str]]] = {}
    for tid, action, label, _, _ in events(trace):
        got.setdefault(tid, []).append((action, label))
    assert {t: e for t, e in got.items() if e} == {t: e for t, e in want.items() if e}
    s = Session(trace)
    prof = s.profile(s.query(threads=range(len(trace.threads)), clock="cpu"))
    own, _ = oracle.cpu_weights(rec)
    names = labels(trace)
    assert {names[m]: int(prof.excl["cpu"][m]) for m in np.flatnonzero(prof.excl["cpu"])} == {
        k: v for k, v in own.items() if v
    }


def test_samples_out_of_order_are_sorted() -> None:
    data = sp.recording([*FILES, sp.sample(20, 1, [READ]), sp.sample(10, 1, [WRITE])])
    trace = traceview.load(data)
    trace.validate()
    assert "samples-reordered" in codes(trace)
    assert [e[2] for e in events(trace)] == ["write (libc.so)"] * 2 + ["read (libc.so)"] * 2


@pytest.mark.parametrize("kind", ["cpu-clock", "task-clock:u"])
def test_time_events(kind: str) -> None:
    data = sp.recording([sp.meta([kind]), *FILES, sp.sample(10**6, 1, [READ], 1000)])
    trace = traceview.load(data)
    assert trace.events.cpu is not None and int(trace.events.cpu[-1]) == 1000


def test_tails_and_layouts_the_fast_match_leaves_to_the_walk() -> None:
    """Samples without an event count, with the count after the event type, with an entry of
    over 127 bytes or an unwinding result: the same events as the plain reading."""
    chain = [READ, LOOP]
    body = sp.num(1, 50) + sp.num(2, 1) + b"".join(sp.blob(3, sp.entry(f)) for f in chain)
    long_entry = sp.blob(3, sp.entry(WRITE) + sp.text(9, "x" * 130))
    records = [
        sp.meta(["cpu-clock"]),
        *FILES,
        sp.sample(10, 1, chain, None),  # no count: `28 event` only
        sp.blob(1, body + sp.num(5, 0) + sp.num(4, 250_000)),  # event type before the count
        sp.blob(1, sp.num(1, 90) + sp.num(2, 1) + long_entry + sp.num(4, 7)),
        sp.blob(1, body.replace(sp.num(1, 50), sp.num(1, 120)) + sp.blob(6, sp.num(3, 2))),
        sp.sample(200, 1, [WRITE], 3, event=0),
    ]
    data = sp.recording(records)
    trace = traceview.load(data)
    trace.validate()
    want = oracle.events(oracle.read(data))
    assert [(a, label) for _, a, label, _, _ in events(trace)] == want[1]
    assert trace.events.cpu is not None
    assert int(trace.events.cpu[-1]) == 0 + 250_000 + 7 + 0 + 3  # counts; none for the first
