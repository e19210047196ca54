"""The Perfetto export, decoded by `protoc --decode` against Perfetto's own perfetto_trace.proto
(support/protoc.py): one slice per call on each thread's track (names, nesting, pid/tid, CLOCK_
MONOTONIC ns, thread CPU time on the thread-time counter), the diagnostics as instants, hostile
names intact, `--merge-into` the corpus's real system trace, every corpus trace exported."""

from __future__ import annotations

import io
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from support.corpus import corpus_path, readable
from support.protoc import Message, decode, one, packets
from support.tracebuild import make_trace
from traceview.analysis import Session
from traceview.analysis.calls import SYNTH_ENTRY
from traceview.analysis.view import View
from traceview.exporters import get
from traceview.exporters.perfetto import monotonic_offset, process_id
from traceview.model import Trace, visible
from traceview.synth import generate

SYSTEM = "sidky-nowinandroid/trace.perfetto-trace"


def render(view: View, **options: Any) -> bytes:
    fmt = get("perfetto")
    buf = io.BytesIO()
    fmt.export(view, buf, fmt.options(**options))
    return buf.getvalue()


def whole(trace: Trace) -> View:
    s = Session(trace)
    return View(s, s.query())


@dataclass
class Read:
    """What a decoded file holds: descriptors by uuid, slices per track (begin order: name,
    start, end, depth, cpu at start, cpu at end), instants, the sequences seen."""

    tracks: dict[int, Message] = field(default_factory=dict)
    slices: dict[int, list[tuple[str, int, int, int, int | None, int | None]]] = field(
        default_factory=dict
    )
    instants: list[tuple[int, Message]] = field(default_factory=list)
    sequences: set[int] = field(default_factory=set)
    clock: int | None = None


def read(pk: list[Message]) -> Read:
    """Replay the packets as trace_processor reads them: sequence state (defaults, interned
    names) cleared by the flag, slices paired by a stack per track."""
    out = Read()
    state: dict[int, dict[str, Any]] = {}
    open_: dict[int, list[list[Any]]] = {}
    for p in pk:
        if "clock_snapshot" in p:
            out.clock = one(one(p, "clock_snapshot"), "primary_trace_clock")
        if "track_descriptor" in p:
            d = one(p, "track_descriptor")
            assert one(d, "uuid") not in out.tracks, "track uuid used twice"
            out.tracks[one(d, "uuid")] = d
        seq = one(p, "trusted_packet_sequence_id")
        if seq is None:
            continue
        out.sequences.add(seq)
        flags = one(p, "sequence_flags", 0)
        if flags & 1:
            state[seq] = {"defaults": one(p, "trace_packet_defaults", {}), "names": {}}
        if "interned_data" in p:
            for entry in one(p, "interned_data").get("event_names", []):
                state[seq]["names"][one(entry, "iid")] = one(entry, "name")
        event = one(p, "track_event")
        if event is None:
            continue
        assert flags & 2, "an event packet must say it needs the sequence's state"
        defaults = state[seq]["defaults"]
        assert one(defaults, "timestamp_clock_id") == 3
        event_defaults = one(defaults, "track_event_defaults", {})
        track = one(event, "track_uuid", one(event_defaults, "track_uuid"))
        assert track in out.tracks
        ts = one(p, "timestamp")
        kind = one(event, "type")
        counters = event.get("extra_counter_values", [])
        assert len(counters) == len(event_defaults.get("extra_counter_track_uuids", []))
        cpu = counters[0] if counters else None
        stack = open_.setdefault(track, [])
        if kind == "TYPE_SLICE_BEGIN":
            name = state[seq]["names"][one(event, "name_iid")]
            entry = [name, ts, None, len(stack), cpu, None]
            out.slices.setdefault(track, []).append(entry)  # type: ignore[arg-type]
            stack.append(entry)
        elif kind == "TYPE_SLICE_END":
            entry = stack.pop()
            assert ts >= entry[1]
            entry[2], entry[5] = ts, cpu
        else:
            assert kind == "TYPE_INSTANT"
            out.instants.append((ts, event))
    assert all(not s for s in open_.values()), "a slice was never closed"
    out.slices = {k: [tuple(e) for e in v] for k, v in out.slices.items()}  # type: ignore[misc]
    return out


def thread_tracks(r: Read) -> dict[tuple[int, int], int]:
    """(pid, tid) -> the uuid of its method-trace track."""
    out = {}
    for uuid, d in r.tracks.items():
        thread = one(d, "thread")
        if thread is not None:
            assert one(d, "disallow_merging_with_system_tracks") is True
            out[(one(thread, "pid"), one(thread, "tid"))] = uuid
    return out


def expected(view: View) -> dict[int, list[tuple[str, int, int, int, int | None, int | None]]]:
    """Per thread id, the calls the export shows (all but synthesised entries), in pre-order,
    from the call table: label, wall start/end + the monotonic offset, depth, CPU start/end."""
    s, trace = view.session, view.trace
    calls = s.calls
    offset = monotonic_offset(trace.header)
    assert offset is not None
    out = {}
    for t in range(len(trace.threads)):
        lo, hi = (int(x) for x in calls.thread_ranges[t])
        rows = [r for r in range(lo, hi) if not calls.flags[r] & SYNTH_ENTRY]
        if not rows:
            continue
        cpu = "cpu" in s.clocks
        out[int(trace.threads.id[t])] = [
            (
                visible(view.methods.label(int(calls.method[r]))),
                int(calls.start("wall", [r])[0]) + offset,
                int(calls.end("wall", [r])[0]) + offset,
                int(calls.depth[r]),
                int(calls.start("cpu", [r])[0]) if cpu else None,
                int(calls.end("cpu", [r])[0]) if cpu else None,
            )
            for r in rows
        ]
    return out


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
        render(view, merge_into=str(corpus_path(SYSTEM)))


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


def test_merge_into_the_corpus_system_trace_decodes_as_one_trace(tmp_path: Path) -> None:
    system = corpus_path(SYSTEM).read_bytes()
    sys_packets = packets(system)
    mono = [
        one(c, "timestamp")
        for p in sys_packets
        if "clock_snapshot" in p
        for c in one(p, "clock_snapshot")["clocks"]
        if one(c, "clock_id") == 3
    ]
    used = {one(p, "trusted_packet_sequence_id") for p in sys_packets} - {None}
    trace = generate(records=3000, threads=2, seed=3)  # placed inside the system trace
    trace = replace(trace, header=replace(trace.header, start_time_us=min(mono) // 1000 + 1, pid=9))
    view = whole(trace)
    merged = render(view, merge_into=str(corpus_path(SYSTEM)))
    assert merged.startswith(system)
    pk = packets(merged)
    assert len(pk) > len(sys_packets)
    r = read(pk[len(sys_packets) :])
    assert not r.sequences & used and r.clock is None  # no snapshot of its own
    want = expected(view)
    tracks = thread_tracks(r)
    for tid, slices in want.items():
        assert r.slices[tracks[(9, tid)]] == slices
    assert min(mono) <= min(x[1] for v in r.slices.values() for x in v) <= max(mono) + 10**10
    # merging again into the merged file takes new sequences and uuids
    path = tmp_path / "merged.perfetto-trace"
    path.write_bytes(merged)
    again = read(packets(render(view, merge_into=str(path)))[len(sys_packets) :])
    assert len(again.sequences) == 2 * len(r.sequences)


def test_every_corpus_trace_exports_one_slice_per_shown_call() -> None:
    """Every corpus trace with times exports and protoc decodes it: one begin and one end per
    call shown, one instant per diagnostic (counted in protoc's text: replaying the biggest
    files in Python would take a minute; the replay is checked on the generated traces)."""
    import traceview

    paths = readable()
    if not paths:
        pytest.skip("../shared/corpus not available")
    for path in paths:
        s = Session(traceview.load(path))
        if s.timeless:
            continue
        text = decode(render(View(s, s.query())))
        shown = int(np.count_nonzero((s.calls.flags & SYNTH_ENTRY) == 0))
        assert text.count("type: TYPE_SLICE_BEGIN\n") == shown, path
        assert text.count("type: TYPE_SLICE_END\n") == shown, path
        assert text.count("type: TYPE_INSTANT\n") == len(s.diagnostics()), path


@pytest.fixture(scope="module")
def trace_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from traceview.writer import write

    path = tmp_path_factory.mktemp("perfetto") / "t.trace"
    write(generate(records=2000, threads=2, seed=5), str(path))
    return path


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one line a refused command prints (status 2)."""
    from traceview.cli import main

    assert main(argv) == 2, argv
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("traceview: "), (argv, err)
    return err[0]


def test_the_cli_guesses_perfetto_and_refuses_merge_into_for_other_formats(
    trace_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from traceview.cli import main

    out = tmp_path / "x.perfetto-trace"
    assert main(["export", str(trace_file), "-o", str(out)]) == 0
    assert "(perfetto)" in capsys.readouterr().err
    assert read(packets(out.read_bytes())).slices
    line = refused(
        ["export", str(trace_file), "-o", str(tmp_path / "x.json"), "--merge-into", str(out)],
        capsys,
    )
    assert "--merge-into does not apply to chrome" in line


def test_the_readers_hint_is_a_command_that_works(
    trace_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import traceview
    from traceview.cli import main

    system = corpus_path(SYSTEM)
    with pytest.raises(traceview.TraceError) as err:
        traceview.load(system)
    hint = str(err.value).split("`")[1]
    words = hint.replace("METHOD.trace", str(trace_file)).replace("THIS_FILE", str(system))
    argv = words.replace("merged.perfetto-trace", str(tmp_path / "m.perfetto-trace")).split()
    assert argv[:2] == ["traceview", "export"]
    assert main(argv[1:]) == 0, capsys.readouterr().err
    merged = (tmp_path / "m.perfetto-trace").read_bytes()
    assert merged.startswith(system.read_bytes())


def test_a_system_trace_that_is_not_one_is_refused_in_one_line(
    trace_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "m.perfetto-trace")
    bad = tmp_path / "bad.perfetto-trace"
    bad.write_bytes(b"hello, world")
    line = refused(["export", str(trace_file), "-o", out, "--merge-into", str(bad)], capsys)
    assert "at byte 0" in line and "not a Perfetto trace" in line
    good = render(whole(generate(records=200, threads=1, seed=1)))
    bad.write_bytes(good[:-3])
    line = refused(["export", str(trace_file), "-o", out, "--merge-into", str(bad)], capsys)
    assert "cut short" in line and "at byte" in line
    bad.write_bytes(b"")
    assert "empty" in refused(
        ["export", str(trace_file), "-o", out, "--merge-into", str(bad)], capsys
    )
    assert "No such file" in refused(
        ["export", str(trace_file), "-o", out, "--merge-into", str(tmp_path / "none")], capsys
    )
    assert not Path(out).exists()


def test_chunks_of_any_size_write_the_same_packets(dual: View) -> None:
    from traceview.analysis.kernels import packets
    from traceview.exporters.perfetto import calls, kept
    from traceview.exporters.stacks import thread_calls

    for part in thread_calls(dual):
        rows, ends, parents = kept(part)
        shown = calls(part, rows, ends, parents, "wall", 0, True)
        whole = packets.event_packets(shown, b"\x50\x01")
        for size in (1, 2, 7, 100):
            pieces = packets.written(shown, b"\x50\x01", packets.Buffers(), 2, size)
            assert b"".join(bytes(p) for p in pieces) == whole, size


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
