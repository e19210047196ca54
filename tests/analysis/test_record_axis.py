"""The timeline axis of CPU-only traces, reconstructed from the order of records
(analysis/axis.py), and the session's layout on it."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from support.tracebuild import make_trace
from traceview.analysis.axis import record_axis
from traceview.analysis.session import Session

# two threads interleaved in the file; each one's own CPU clock starts far from the other's
EVENTS = [
    (1, "enter", "a.Main.run", 100, None),
    (1, "enter", "a.Main.work", 110, None),
    (2, "enter", "b.Worker.run", 5_000, None),
    (2, "exit", "b.Worker.run", 5_030, None),
    (1, "exit", "a.Main.work", 150, None),
    (2, "enter", "b.Worker.run", 5_040, None),
    (2, "exit", "b.Worker.run", 5_045, None),
    (1, "exit", "a.Main.run", 160, None),
]


def test_axis_sums_each_records_own_cpu_step_in_file_order() -> None:
    tr = make_trace(EVENTS, clock="thread-cpu")
    assert tr.events.cpu is not None
    got = record_axis(tr.events.thread, tr.events.cpu)
    # steps: 0, 10, 0 (worker's first), 30, 40, 10, 5, 10 (µs)
    assert (got // 1000).tolist() == [0, 10, 10, 40, 80, 90, 95, 105]


def test_session_lays_calls_out_on_the_axis() -> None:
    s = Session(make_trace(EVENTS, clock="thread-cpu"))
    assert s.reconstructed and s.timeline_clock == "cpu"
    assert (s.origin, s.end) == (0, 105_000)
    main, worker = 0, 1
    assert s.thread_axis_span(main) == (0, 105_000)
    assert s.thread_axis_span(worker) == (10_000, 95_000)
    tile = s.timeline().tile(worker, 0, 0)
    assert (tile.rect_start // 1000).tolist() == [10, 90]
    assert (tile.rect_end // 1000).tolist() == [40, 95]
    tile = s.timeline().tile(main, 0, 0)
    assert (tile.rect_start // 1000).tolist() == [0, 10]
    assert (tile.rect_end // 1000).tolist() == [105, 80]
    # the worker's first call sits inside Main.work on the axis, as it did in the file
    start, end = s.placed(np.arange(len(s.calls)))
    assert (start // 1000).tolist() == [0, 10, 10, 90]
    assert (end // 1000).tolist() == [105, 80, 40, 95]


def test_a_range_on_the_axis_keeps_each_threads_cpu_time_inside_it() -> None:
    s = Session(make_trace(EVENTS, clock="thread-cpu"))
    assert s.clocks == ("cpu",)  # the axis is no clock: profiles report CPU only
    p = s.profile(s.query())
    assert p.thread_total["cpu"].tolist() == [60_000, 45_000]
    # axis 20..90 µs: Main.work runs 10..80 on the axis, interrupted by the worker 10..40
    tr = s.time_range(20_000, 90_000)
    assert tr is not None and tr.clock == "axis"
    q = s.query(time_range=tr)
    p = s.profile(q)
    # main: axis 10..40 is the worker's, so at 20 its CPU still reads 110; axis 80..105 is
    # its own step to 160 (its exit), so at 90 it reads 150 -- Main.work's 40 µs all inside
    assert p.thread_total["cpu"].tolist() == [40_000, 30_000]  # 70 µs: the range's length
    names = s.methods(q)
    incl = {names.full_name(m): int(v) for m, v in enumerate(p.incl["cpu"]) if v}
    assert incl == {"a.Main.run": 40_000, "a.Main.work": 40_000, "b.Worker.run": 20_000}
    # every view clips the same way
    assert int(s.top_down(q).incl["cpu"].max()) == 40_000


def test_wall_traces_keep_the_wall_axis() -> None:
    dual = [(t, a, m, c, c * 2 if c is not None else None) for t, a, m, c, _ in EVENTS]
    s = Session(make_trace(dual, clock="dual"))
    assert not s.reconstructed and s.axis_clock == "wall"
    assert s.origin == 200_000
    assert s.thread_axis_span(1) == s.calls.thread_span(1, "wall")


@st.composite
def interleaved(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    n = draw(st.integers(1, 300))
    thread = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), dtype=np.uint8)
    steps = np.array(draw(st.lists(st.integers(0, 10**6), min_size=n, max_size=n)))
    base = np.array(draw(st.lists(st.integers(0, 10**12), min_size=5, max_size=5)))
    cpu = np.zeros(n, dtype=np.int64)
    for t in range(5):  # each thread's clock rises from its own base
        rows = np.flatnonzero(thread == t)
        cpu[rows] = base[t] + np.cumsum(steps[rows])
    return thread, cpu


@settings(max_examples=200, deadline=None)
@given(interleaved())
def test_axis_is_monotonic_and_keeps_each_threads_cpu_steps(
    case: tuple[np.ndarray, np.ndarray],
) -> None:
    thread, cpu = case
    axis = record_axis(thread, cpu)
    assert axis[0] == 0 and bool(np.all(np.diff(axis) >= 0))
    for t in np.unique(thread):
        rows = np.flatnonzero(thread == t)
        gaps = np.diff(axis[rows])
        assert bool(np.all(gaps >= np.diff(cpu[rows])))  # a thread's own time always fits
    # the axis ends at the sum of every thread's CPU span
    spans = sum(int(cpu[thread == t].max() - cpu[thread == t].min()) for t in np.unique(thread))
    assert int(axis[-1]) == spans


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 1000),
    a=st.floats(-0.1, 1.1),
    b=st.floats(-0.1, 1.1),
)
def test_the_cpu_inside_an_axis_range_adds_up_to_its_length(seed: int, a: float, b: float) -> None:
    from traceview.synth import generate

    s = Session(generate(records=2_000, threads=4, seed=seed, clock="thread-cpu"))
    span = s.end - s.origin
    lo, hi = sorted((round(a * span), round(b * span)))
    q = s.query(time_range=s.time_range(lo, hi))
    p = s.profile(q)
    # every ns of the axis is one thread's CPU step: the threads' CPU inside the range sums to
    # the part of the range that lies on the axis
    inside = max(0, min(hi, span) - max(lo, 0))
    assert int(p.thread_total["cpu"].sum()) == inside
    assert (p.incl["cpu"] >= 0).all() and int(p.toplevel["cpu"]) <= inside


def test_the_axis_is_built_only_when_something_is_placed_on_it() -> None:
    s = Session(make_trace(EVENTS, clock="thread-cpu"))
    s.profile(s.query())  # a whole-trace profile (traceview -r) never needs it
    assert "axis" not in vars(s.trace.events)
    assert s.end == 105_000 and "axis" in vars(s.trace.events)
