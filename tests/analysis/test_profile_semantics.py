"""traceview/dmtracedump statistics on small hand-built traces: recursion, the self row,
parents/children and their "while recursive" groups, per-thread selection, time ranges,
sampled traces as estimates."""

from __future__ import annotations

from dataclasses import replace

from support.tracebuild import make_trace
from traceview.analysis.calls import build_calls
from traceview.analysis.profile import Profile, profile, thread_profiles
from traceview.model import Trace

M = ["a.A.main", "a.A.rec", "a.A.leaf"]


def rec_trace() -> Trace:
    # main -> rec -> rec -> leaf ; main -> leaf   (µs: cpu, wall)
    return make_trace(
        [
            (1, "enter", "a.A.main", 0, 0),
            (1, "enter", "a.A.rec", 1, 2),
            (1, "enter", "a.A.rec", 2, 4),
            (1, "enter", "a.A.leaf", 3, 6),
            (1, "exit", "a.A.leaf", 5, 10),
            (1, "exit", "a.A.rec", 6, 12),
            (1, "exit", "a.A.rec", 8, 16),
            (1, "enter", "a.A.leaf", 9, 17),
            (1, "exit", "a.A.leaf", 10, 20),
            (1, "exit", "a.A.main", 12, 24),
        ],
        methods=M,
    )


def prof(trace: Trace) -> Profile:
    p = profile(build_calls(trace))
    p.validate()
    return p


def test_recursive_calls_counted_once_in_inclusive() -> None:
    p = prof(rec_trace())
    main, rec = 0, 1
    assert p.calls.tolist() == [1, 1, 2]
    assert p.recursive_calls.tolist() == [0, 1, 0]
    assert p.incl["cpu"].tolist() == [12000, 7000, 3000]  # rec: outer call only
    assert p.excl["cpu"].tolist() == [4000, 5000, 3000]  # rec: 2 + 3 (both calls)
    assert p.top_excl["cpu"].tolist() == [4000, 3000, 3000]  # self row: outer call only
    assert p.incl["wall"][rec] == 14000
    assert p.total("cpu") == 12000 and p.toplevel["cpu"] == 0
    off = p.off_cpu()
    assert off is not None and off[main] == 12000


def test_parents_children_and_while_recursive_groups() -> None:
    p = prof(rec_trace())
    main, rec, leaf = 0, 1, 2
    kids = p.children(main)
    assert kids.method.tolist() == [rec, leaf] and kids.calls.tolist() == [1, 1]
    assert kids.incl["cpu"].tolist() == [7000, 1000]
    # rec's recursive call: a child of a non-recursive rec, a "parent while recursive" edge
    assert p.children(rec).method.tolist() == [rec]
    assert p.parents(rec, recursive=True).method.tolist() == [rec]
    assert p.parents(rec, recursive=True).incl["cpu"].tolist() == [4000]
    # leaf called from the recursive rec: "children while recursive" of rec
    assert p.children(rec, recursive=True).method.tolist() == [leaf]
    assert p.parents(leaf).method.tolist() == [rec, main]
    assert p.parents(leaf).calls.tolist() == [1, 1]
    assert p.parents(main).method.tolist() == [-1]  # (toplevel)


def test_thread_selection_and_per_thread_profiles() -> None:
    trace = make_trace(
        [
            (1, "enter", "a.A.f", 0, 0),
            (2, "enter", "a.A.f", 0, 0),
            (1, "exit", "a.A.f", 4, 5),
            (2, "exit", "a.A.f", 6, 9),
        ],
        names={1: "main", 2: "worker"},
    )
    calls = build_calls(trace)
    both = profile(calls)
    one = profile(calls, threads=[1])
    parts = thread_profiles(calls)
    for p in (both, one, *parts):
        p.validate()
    assert both.incl["cpu"].tolist() == [10000]
    assert one.incl["cpu"].tolist() == [6000] and one.threads == (1,)
    assert [int(p.thread_total["wall"][0]) for p in parts] == [5000, 9000]
    assert profile(calls, clock="wall").clocks == ("wall",)


def test_time_range_clips_calls_on_both_clocks() -> None:
    calls = build_calls(rec_trace())
    p = profile(calls, time_range=(4000, 12000))  # wall µs 4..12
    p.validate()
    assert p.total("wall") == 8000
    # the cpu bounds are interpolated on the thread's records: wall 4 -> cpu 2, 12 -> 6
    assert p.total("cpu") == 4000
    assert p.calls.tolist() == [1, 1, 1]  # main, outer rec, first leaf overlap
    assert p.recursive_calls.tolist() == [0, 1, 0]
    assert p.incl["wall"].tolist() == [8000, 8000, 4000]


def test_sampled_traces_are_estimates() -> None:
    trace = rec_trace()
    trace.header = replace(trace.header, sampled=True)
    assert prof(trace).estimates
    assert not prof(rec_trace()).estimates


def test_wall_only_trace_prefers_wall() -> None:
    trace = make_trace(
        [(1, "enter", "a.A.f", None, 0), (1, "exit", "a.A.f", None, 3)], clock="wall"
    )
    p = prof(trace)
    assert p.clocks == ("wall",) and p.preferred_clock == "wall" and p.off_cpu() is None
