"""The call table's policies for unbalanced stacks, on small hand-built traces and the perflib
corpus files, and its layout (pre-order, subtree slices, parents)."""

from __future__ import annotations

import numpy as np

import traceview
from support.corpus import corpus_path
from support.oracle import oracle
from support.tracebuild import make_trace
from traceview.analysis.calls import (
    FORCED_EXIT,
    OPEN,
    RECURSIVE,
    SYNTH_ENTRY,
    UNROLL,
    CallTable,
    build_calls,
)
from traceview.model import Trace


def labels(calls: CallTable) -> list[tuple[int, str]]:
    m = calls.trace.methods
    return [
        (d, m.full_name(r))
        for d, r in zip(calls.depth.tolist(), calls.method.tolist(), strict=True)
    ]


def codes(calls: CallTable) -> dict[str, int | None]:
    return {d.code: d.count for d in calls.diagnostics}


def test_balanced_nesting_and_layout() -> None:
    t = make_trace(
        [
            (1, "enter", "a.A.run", 0, 0),
            (1, "enter", "a.A.f", 1, 2),
            (1, "exit", "a.A.f", 3, 5),
            (1, "enter", "a.A.g", 4, 6),
            (1, "enter", "a.A.f", 5, 8),
            (1, "exit", "a.A.f", 6, 9),
            (1, "exit", "a.A.g", 7, 10),
            (1, "exit", "a.A.run", 9, 14),
        ]
    )
    calls = build_calls(t)
    calls.validate()
    assert labels(calls) == [(0, "a.A.run"), (1, "a.A.f"), (1, "a.A.g"), (2, "a.A.f")]
    assert calls.parent.tolist() == [-1, 0, 0, 2]
    assert calls.subtree_end.tolist() == [4, 2, 4, 4]
    assert calls.incl("cpu").tolist() == [9000, 2000, 3000, 1000]
    assert calls.excl("cpu").tolist() == [4000, 2000, 2000, 1000]
    assert calls.incl("wall").tolist() == [14000, 3000, 4000, 1000]
    assert calls.flags.tolist() == [0, 0, 0, 0]
    assert calls.diagnostics == []
    assert calls.start_cpu is not None and calls.start_cpu.tolist() == [0, 1000, 4000, 5000]


def test_perflib_basic_trace_began_inside_start_method_tracing() -> None:
    t = traceview.load(corpus_path("aosp-perflib/basic.trace"))
    t.validate()
    calls = build_calls(t)
    calls.validate()
    rows = labels(calls)
    assert rows[:3] == [
        (0, "android/os/Debug.startMethodTracing"),
        (1, "android/os/Debug.startMethodTracing"),
        (2, "dalvik/system/VMDebug.startMethodTracing"),
    ]
    assert t.methods.signature[int(calls.method[1])] == "(Ljava/lang/String;II)V"
    assert (calls.flags[:3] & SYNTH_ENTRY).all()
    # the synthesised entry is the thread's first timestamp (3 µs), on both clocks
    assert calls.start("cpu")[:3].tolist() == [3000] * 3
    assert codes(calls)["exit-without-enter"] == 3
    assert codes(calls)["open-at-end"] == 2


def test_exit_without_enter_adopts_finished_calls() -> None:
    t = make_trace(
        [
            (1, "enter", "a.A.f", 2, 2),
            (1, "exit", "a.A.f", 3, 3),
            (1, "exit", "a.A.outer", 5, 5),
            (1, "enter", "a.A.g", 6, 6),
            (1, "exit", "a.A.g", 8, 8),
        ]
    )
    calls = build_calls(t)
    calls.validate()
    assert labels(calls) == [(0, "a.A.outer"), (1, "a.A.f"), (0, "a.A.g")]
    assert calls.incl("cpu").tolist() == [3000, 1000, 2000]
    assert calls.excl("cpu").tolist() == [2000, 1000, 2000]


def test_open_calls_close_at_the_thread_last_timestamp() -> None:
    t = make_trace(
        [
            (1, "enter", "a.A.run", 0, 0),
            (1, "enter", "a.A.f", 2, 3),
            (2, "enter", "b.B.x", 0, 0),
            (1, "exit", "a.A.f", 4, 6),
            (2, "exit", "b.B.x", 1, 9),
        ]
    )
    calls = build_calls(t)
    calls.validate()
    assert calls.flags.tolist() == [OPEN, 0, 0]
    assert calls.end("wall").tolist() == [6000, 6000, 9000]
    assert calls.thread_ranges.tolist() == [[0, 2], [2, 3]]


def test_unroll_is_an_exit() -> None:
    t = make_trace(
        [
            (1, "enter", "a.A.f", 0, 0),
            (1, "enter", "a.A.g", 1, 1),
            (1, "unroll", "a.A.g", 2, 2),
            (1, "unroll", "a.A.f", 3, 3),
        ]
    )
    calls = build_calls(t)
    calls.validate()
    assert calls.flags.tolist() == [UNROLL, UNROLL]
    assert codes(calls) == {"unroll-exit": 2}


def test_exit_of_a_deeper_frame_closes_the_frames_above() -> None:
    t = make_trace(
        [
            (1, "enter", "a.A.f", 0, 0),
            (1, "enter", "a.A.g", 1, 1),
            (1, "enter", "a.A.h", 2, 2),
            (1, "exit", "a.A.f", 5, 6),  # g and h never exit
            (1, "enter", "a.A.k", 6, 7),
            (1, "exit", "a.A.k", 7, 8),
        ]
    )
    calls = build_calls(t)
    calls.validate()
    assert labels(calls) == [(0, "a.A.f"), (1, "a.A.g"), (2, "a.A.h"), (0, "a.A.k")]
    assert calls.flags.tolist() == [0, FORCED_EXIT, FORCED_EXIT, 0]
    assert calls.end("cpu").tolist() == [5000, 5000, 5000, 7000]
    assert codes(calls) == {"forced-exit": 2}


def test_exit_of_a_method_not_on_the_stack_is_dropped() -> None:
    t = make_trace(
        [
            (1, "enter", "a.A.f", 0, 0),
            (1, "exit", "a.A.zzz", 2, 2),
            (1, "exit", "a.A.f", 5, 5),
        ]
    )
    calls = build_calls(t)
    calls.validate()
    assert labels(calls) == [(0, "a.A.f")]
    assert calls.incl("cpu").tolist() == [5000]  # the dropped record's time stays in f
    assert codes(calls) == {"stray-exit-dropped": 1}


def test_recursion_flags_only_calls_inside_the_same_method() -> None:
    t = make_trace(
        [
            (1, "enter", "a.A.f", 0, 0),
            (1, "enter", "a.A.g", 1, 1),
            (1, "enter", "a.A.f", 2, 2),
            (1, "exit", "a.A.f", 3, 3),
            (1, "exit", "a.A.g", 4, 4),
            (1, "exit", "a.A.f", 5, 5),
            (1, "enter", "a.A.f", 6, 6),
            (1, "exit", "a.A.f", 7, 7),
        ]
    )
    calls = build_calls(t)
    assert calls.flags.tolist() == [0, 0, RECURSIVE, 0]


def test_empty_and_eventless_threads() -> None:
    t = make_trace([(5, "enter", "a.A.f", 0, 0)], names={5: "x"})
    calls = build_calls(t)
    calls.validate()
    assert len(calls) == 1 and calls.flags.tolist() == [OPEN]
    assert calls.incl("cpu").tolist() == [0]


def test_exception_trace_has_three_unrolls() -> None:
    t = traceview.load(corpus_path("aosp-perflib/exception.trace"))
    calls = build_calls(t)
    calls.validate()
    assert int(np.count_nonzero(calls.flags & UNROLL)) == 3


def _same_as_reference(trace: Trace) -> None:
    calls = build_calls(trace)
    calls.validate()
    ref = oracle(trace).calls
    assert calls.method.tolist() == [c.method for c in ref]
    assert calls.parent.tolist() == [c.parent_row for c in ref]
    assert calls.exit_event.tolist() == [c.exit_event for c in ref]
    assert calls.flags.tolist() == [c.flags for c in ref]


def test_many_threads_and_thread_grouped_files() -> None:
    # > 64 threads takes the one-sort path; a file grouped by thread takes the slicing path
    events = []
    for tid in range(1, 71):
        events += [(tid, "enter", "a.A.f", 0, 0), (tid, "enter", "a.A.g", 1, 1)]
        events += [(tid, "exit", "a.A.g", 2, 2)]
        if tid % 3:
            events.append((tid, "exit", "a.A.f", 3, 4))
    _same_as_reference(make_trace(events))
    interleaved = sorted(events, key=lambda e: (e[3], e[0]))
    _same_as_reference(make_trace(interleaved))
    _same_as_reference(make_trace(events[: 4 * 10]))


def test_stacks_deeper_than_65535_levels() -> None:
    depth = 70_000
    rows = np.arange(2 * depth)
    enter = rows < depth
    trace = make_trace([(1, "enter", "a.A.f", 0, 0)])
    ev = trace.events
    trace.events = type(ev)(
        thread=np.zeros_like(ev.thread.repeat(2 * depth)),
        method=np.zeros(2 * depth, dtype=np.int32),
        action=np.where(enter, 0, 1).astype(np.uint8),
        cpu=rows.astype(np.int64),
        wall=rows.astype(np.int64),
    )
    trace.validate()
    calls = build_calls(trace)
    calls.validate()
    assert int(calls.depth.max()) == depth - 1
    assert int(np.count_nonzero(calls.flags & RECURSIVE)) == depth - 1
    assert calls.parent[-1] == depth - 2
