"""The Perfetto export, decoded by `protoc --decode` against Perfetto's own perfetto_trace.proto
(support/protoc.py): one slice per call on each thread's track (names, nesting, pid/tid, CLOCK_
MONOTONIC ns, thread CPU time on the thread-time counter), the diagnostics as instants, hostile
names intact, ranges, the reconstructed axis, calls without their enter, chunk boundaries.
`--merge-into`, the CLI and the corpus: test_perfetto_merge.py."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from support.perfetto_read import expected, read, render, thread_tracks, whole
from support.protoc import one, packets
from support.tracebuild import make_trace
from traceview.analysis import Session
from traceview.analysis.ask import Ask
from traceview.analysis.calls import SYNTH_ENTRY
from traceview.analysis.view import View
from traceview.exporters.perfetto import monotonic_offset, process_id
from traceview.model import Variant, visible
from traceview.synth import generate


@pytest.fixture(scope="module")
def dual() -> View:
    return whole(generate(records=6000, threads=3, seed=11))


def test_slices_are_the_calls_with_names_nesting_pids_and_monotonic_ns(dual: View) -> None:
    r = read(packets(render(dual)))
    assert r.clock == "BUILTIN_CLOCK_MONOTONIC"
    pid = process_id(dual)
    assert pid == dual.trace.header.pid
    tracks = thread_tracks(r)
    want = expected(dual)
    assert set(tracks) == {(pid, tid) for tid in want}
    for tid, slices in want.items():
        assert r.slices[tracks[(pid, tid)]] == slices
    assert sum(len(v) for v in r.slices.values()) == len(dual.session.calls)


def test_thread_cpu_time_is_a_thread_time_counter_of_each_thread_track(dual: View) -> None:
    r = read(packets(render(dual)))
    counters = {
        one(d, "parent_uuid"): one(one(d, "counter"), "type")
        for d in r.tracks.values()
        if "counter" in d
    }
    assert set(counters) == set(thread_tracks(r).values())
    assert set(counters.values()) == {"COUNTER_THREAD_TIME_NS"}


def test_diagnostics_are_instants_at_the_start_with_their_message() -> None:
    events = [(1, "exit", "a.B.early", 1, 1), (1, "enter", "a.B.run", 2, 2)]
    trace = replace(make_trace(events), header=replace(make_trace(events).header, pid=77))
    trace = replace(trace, header=replace(trace.header, start_time_us=5_000))
    view = whole(trace)
    r = read(packets(render(view)))
    found = view.session.diagnostics()
    assert [one(e, "name") for _, e in r.instants] == [d.code for d in found]
    for (ts, e), d in zip(r.instants, found, strict=True):
        notes = {one(a, "name"): a for a in e["debug_annotations"]}
        assert one(notes["message"], "string_value") == d.message
        assert ts == 5_000_000 + view.session.origin
    # the exit without its enter is left out (androidx drops unpaired ends); the open call
    # is closed at the thread's last time
    (slices,) = r.slices.values()
    assert [s[0] for s in slices] == [visible(view.methods.label(1))]
    assert slices[0][2] == 5_000_000 + 2_000


ODD = ["com.a.B.x<&>\"'(I)V", "com.a.B.nl\nx\x00y", "com.a.B.b\udcff", "com.a.B.ü✓(Lé;)V"]


def test_hostile_names_stay_intact_as_protobuf_strings() -> None:
    events = []
    for i, name in enumerate(ODD):
        events += [(1, "enter", name, 10 * i, 10 * i), (1, "exit", name, 10 * i + 5, 10 * i + 6)]
    trace = make_trace(events, names={1: 'main"\n<x>'})
    trace = replace(trace, header=replace(trace.header, start_time_us=1))
    view = whole(trace)
    r = read(packets(render(view, title="app\x1b[31m")))
    (slices,) = r.slices.values()
    assert [s[0] for s in slices] == [visible(view.methods.label(i)) for i in range(len(ODD))]
    threads = [one(one(d, "thread"), "thread_name") for d in r.tracks.values() if "thread" in d]
    assert threads == ['main"\n<x>']
    processes = [one(d, "process") for d in r.tracks.values() if "process" in d]
    assert one(processes[0], "process_name") == "app\x1b[31m"


def test_a_range_clips_the_slices_to_it(dual: View) -> None:
    s = dual.session
    span = s.end - s.origin
    tr = s.time_range(span // 3, span // 2)
    view = View(s, s.query(time_range=tr))
    offset = monotonic_offset(dual.trace.header)
    assert offset is not None and tr is not None
    r = read(packets(render(view)))
    starts = [x[1] for v in r.slices.values() for x in v]
    ends = [x[2] for v in r.slices.values() for x in v]
    assert min(starts) >= tr.lo + offset and max(ends) <= tr.hi + offset
    assert sum(len(v) for v in r.slices.values()) < len(s.calls)


def test_without_a_monotonic_start_times_count_from_the_trace_start() -> None:
    events = [(1, "enter", "a.B.run", 3, 100), (1, "exit", "a.B.run", 4, 150)]
    view = whole(make_trace(events))  # no header start time
    assert monotonic_offset(view.trace.header) is None
    (slices,) = read(packets(render(view))).slices.values()
    assert slices[0][1:3] == (0, 50_000)
    with pytest.raises(Exception, match="CLOCK_MONOTONIC"):
        render(view, merge_into="never-read.perfetto-trace")  # refused before it is read


def test_a_cpu_only_trace_lies_on_its_reconstructed_axis() -> None:
    events = [
        (1, "enter", "a.B.run", 0, None),
        (2, "enter", "a.C.go", 0, None),
        (1, "exit", "a.B.run", 10, None),
        (2, "exit", "a.C.go", 7, None),
    ]
    view = whole(make_trace(events, clock="thread-cpu"))
    r = read(packets(render(view)))
    got = sorted(x[1:3] + x[4:] for v in r.slices.values() for x in v)
    # the axis advances by each record's CPU delta in file order (docs/web-api.md): thread
    # 2's exit comes after thread 1 ran 10 µs, so its call spans 0..17 µs on the axis
    assert got == [(0, 10_000, 0, 10_000), (0, 17_000, 0, 7_000)]


def test_chunks_of_any_size_write_the_same_packets(dual: View) -> None:
    """Each chunk starts from the chain of callers open at its first call: any cut gives the
    same bytes, also for the tables a range or "my code" cuts (their parents remapped)."""
    from traceview.analysis.kernels import packets as kernel
    from traceview.exporters.perfetto import calls, kept
    from traceview.exporters.stacks import thread_calls

    s = dual.session
    span = s.end - s.origin
    top = sorted({dual.methods.class_name[i].split(".")[0] for i in range(len(dual.methods))})
    views = [
        dual,
        View(s, s.query(time_range=s.time_range(span // 4, span // 2))),
        View(s, s.resolve(Ask(my_code=(top[0],))).query),
    ]
    for view in views:
        for part in thread_calls(view):
            rows, ends, parents = kept(part)
            shown = calls(part, rows, ends, parents, "wall", 0, True)
            whole = kernel.event_packets(shown, b"\x50\x01")
            for size in (1, 2, 7, 100):
                pieces = kernel.written(shown, b"\x50\x01", kernel.Buffers(), 2, size)
                assert b"".join(bytes(p) for p in pieces) == whole, size
        read(packets(render(view)))  # and the file nests


def test_calls_without_their_enter_are_left_out_and_the_rest_keep_their_nesting() -> None:
    events = [
        (1, "enter", "a.B.x", 1, 1),
        (1, "exit", "a.B.x", 2, 2),
        (1, "exit", "a.B.outer", 3, 3),  # entered before tracing began
        (1, "enter", "a.B.y", 4, 4),
        (1, "enter", "a.B.z", 5, 5),
        (1, "exit", "a.B.z", 6, 6),
        (1, "exit", "a.B.y", 7, 7),
        (1, "exit", "a.B.outermost", 8, 8),
        (1, "enter", "a.B.open", 9, 9),
    ]
    trace = make_trace(events)
    view = whole(replace(trace, header=replace(trace.header, start_time_us=1000)))
    assert int(np.count_nonzero(view.session.calls.flags & SYNTH_ENTRY)) == 2
    (slices,) = read(packets(render(view))).slices.values()
    got = [
        (name.split()[0], start // 1000 - 1000, end // 1000 - 1000, depth)
        for name, start, end, depth, _, _ in slices
    ]
    assert got == [
        ("a.B.x", 1, 2, 0),
        ("a.B.y", 4, 7, 0),
        ("a.B.z", 5, 6, 1),
        ("a.B.open", 9, 9, 0),
    ]


def test_a_cpu_only_trace_clipped_to_a_range_of_its_axis() -> None:
    events = [(1, "enter", "a.B.run", 0, None), (1, "exit", "a.B.run", 100, None)]
    events += [(2, "enter", "a.C.go", 0, None), (2, "exit", "a.C.go", 50, None)]
    s = Session(make_trace(events, clock="thread-cpu"))
    tr = s.time_range(20_000, 120_000)
    r = read(packets(render(View(s, s.query(time_range=tr)))))
    got = sorted(x[1:3] + x[4:] for v in r.slices.values() for x in v)
    # the axis: thread 1 runs 0..100 µs, then thread 2 (first record at 100) 100..150 µs
    assert got == [(20_000, 100_000, 20_000, 100_000), (100_000, 120_000, 0, 20_000)]


@pytest.mark.parametrize(
    ("variant", "vm", "start_us", "mono", "want"),
    [
        ("regular", "art", 5, None, 5_000),  # ART's header start: µs of CLOCK_MONOTONIC
        ("v2-streaming", "art", 5, None, 5_000),
        ("regular", "dalvik", 5, None, None),  # Dalvik's is the time of day
        ("regular", "art", 0, None, None),  # none recorded
        ("low-overhead", None, 5, 77, 77),  # the dump's type-3 summary packet
        ("low-overhead", None, 5, None, None),  # no summary: the dump's own time base
        ("simpleperf", None, 5, 5_123, 5_123),
    ],
)
def test_the_monotonic_origin_comes_from_what_each_file_records(
    variant: Variant, vm: str | None, start_us: int, mono: int | None, want: int | None
) -> None:
    header = make_trace([]).header
    header = replace(
        header, variant=variant, vm=vm, start_time_us=start_us, monotonic_offset_ns=mono
    )
    assert monotonic_offset(header) == want


def test_an_android_16_dump_lies_on_monotonic_through_its_summary_packet() -> None:
    import traceview
    from traceview.writer.lowoverhead.art import ArtRun, Method

    loop, work = Method(0x1000, "android.os.Looper", "loop"), Method(0x1008, "com.a.B", "work")
    hz = 24_576_000
    run, tick = ArtRun(monotonic_offset_ns=5_000_000_000), 10**11
    run.start(100, "main", [loop], tick)
    run.enter(100, work, tick)
    run.exit(100, tick + 2 * hz)  # 2 s: long-running
    trace = traceview.load(run.dump(tick + 3 * hz))
    view = whole(trace)
    offset = trace.header.monotonic_offset_ns
    assert offset is not None and monotonic_offset(trace.header) == offset
    r = read(packets(render(view)))
    calls = view.session.calls
    got = sorted(x[1:3] for v in r.slices.values() for x in v)
    want = sorted(
        (
            int(calls.start("wall", slice(i, i + 1))[0]) + offset,
            int(calls.end("wall", slice(i, i + 1))[0]) + offset,
        )
        for i in range(len(calls))
        if not calls.flags[i] & SYNTH_ENTRY
    )
    assert got == want and len(got) >= 2
