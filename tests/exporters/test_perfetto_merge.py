"""`export --merge-into`: the method tracks appended to the corpus's real system trace decode as
one trace with protoc (new sequence ids and track uuids, the slices the call table says, the
system trace's bytes first), merging twice, refusals in one line; the CLI's flag and the
readers' hint; every corpus trace exported and decoded."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from support.corpus import corpus_path, readable
from support.perfetto_read import SYSTEM, expected, read, render, thread_tracks, whole
from support.protoc import decode, one, packets
from support.refusal import refused
from traceview.analysis import Session
from traceview.analysis.calls import SYNTH_ENTRY
from traceview.analysis.view import View
from traceview.synth import generate


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


def test_a_trace_without_a_monotonic_start_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from support.tracebuild import make_trace
    from traceview.writer import write

    path = tmp_path / "nostart.trace"  # written with a start time of 0: none recorded
    write(make_trace([(1, "enter", "a.B.run", 1, 1), (1, "exit", "a.B.run", 2, 2)]), str(path))
    out = tmp_path / "m.perfetto-trace"
    system = str(corpus_path(SYSTEM))
    line = refused(["export", str(path), "-o", str(out), "--merge-into", system], capsys)
    assert "CLOCK_MONOTONIC" in line and not out.exists()
