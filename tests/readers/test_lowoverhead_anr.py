"""ANR reports and bugreport zips carrying Android 16 long-running dumps: every
`LongRunningMethods:` line found with its process, one picked by name or pid, the others
listed; damage (cut or bad base64, a zip without ANR texts) gives a trace with diagnostics or
one line."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pytest

from traceview.model import TraceError, TraceFormatError
from traceview.readers import load
from traceview.writer.lowoverhead.anr import ProcessText, anr_report, bugreport_zip
from traceview.writer.lowoverhead.art import ArtRun, Method

METHODS = [Method(0x7000_0000 + 16 * i, "com.app.C", f"m{i}") for i in range(8)]
HZ = 24_576_000


def recorded(seed: int, to: str = "anr", mode: str = "long-running") -> bytes:
    """A run of two threads whose calls last 0.1 ms to 2 s, dumped as ART would."""
    rng = np.random.default_rng(seed)
    run = ArtRun(mode=mode)
    tick, depth = 10**11, {1: 0, 2: 0}
    for tid in depth:
        run.start(tid, "main" if tid == 1 else "worker", METHODS[:2], tick)
    for _ in range(400):
        tid = int(rng.integers(1, 3))
        tick += int(rng.choice([HZ // 10_000, HZ // 100, HZ // 2, 2 * HZ]))
        if depth[tid] and rng.random() < 0.5:
            run.exit(tid, tick)
            depth[tid] -= 1
        else:
            run.enter(tid, METHODS[int(rng.integers(len(METHODS)))], tick)
            depth[tid] += 1
    return run.dump(tick + 100, to=to)


@pytest.fixture(scope="module")
def report() -> bytes:
    return anr_report(
        [
            ProcessText(4321, "com.example.app", recorded(1)),
            ProcessText(1000, "system_server"),  # not tracing: no line
            ProcessText(555, "com.android.phone", recorded(2)),
        ]
    )


def test_every_dump_is_found_and_the_first_read(report: bytes) -> None:
    trace = load(report)
    trace.validate()
    head = trace.header
    assert head.variant == "low-overhead" and head.process == 0
    assert [(d.name, d.pid, d.member) for d in head.processes] == [
        ("com.example.app", 4321, None),
        ("com.android.phone", 555, None),
    ]
    first = head.processes[0]
    assert first.at == "2025-07-01 12:00:00.123456789+0000"
    assert report.splitlines()[first.line - 1].startswith(b"LongRunningMethods: ")
    assert len(load(recorded(1)).events) == len(trace.events)
    codes = [d.code for d in trace.diagnostics]
    assert codes[:2] == ["other-processes", "long-running-methods-only"]
    assert "com.android.phone (pid 555)" in trace.diagnostics[0].message
    assert head.end_ns is not None and head.monotonic_offset_ns is not None  # summary first


@pytest.mark.parametrize("pick", ["com.android.phone", "555", 555, "phone"])
def test_a_process_is_picked_by_name_or_pid(report: bytes, pick: str | int) -> None:
    trace = load(report, process=pick)
    assert trace.header.process == 1
    assert len(trace.events) == len(load(recorded(2)).events)


def test_an_unknown_process_is_one_line_listing_them(report: bytes) -> None:
    with pytest.raises(TraceFormatError, match=r"com\.example\.app \(pid 4321\)") as caught:
        load(report, process="nope")
    assert "\n" not in str(caught.value)


def test_a_process_of_a_plain_dump_is_refused() -> None:
    with pytest.raises(TraceFormatError, match="not an ANR report"):
        load(recorded(1, to="file"), process="x")


def test_a_bugreport_zip(report: bytes, tmp_path: Path) -> None:
    older = anr_report([ProcessText(77, "com.old.app", recorded(3))])
    data = bugreport_zip(
        {"anr_2025-06-30-09-00-00-000": older, "anr_2025-07-01-12-00-00-123": report}
    )
    path = tmp_path / "bugreport.zip"
    path.write_bytes(data)
    trace = load(path)  # a path: read through zipfile
    trace.validate()
    names = [(d.name, d.member) for d in trace.header.processes]
    assert names == [
        ("com.example.app", "FS/data/anr/anr_2025-07-01-12-00-00-123"),  # the newest ANR first
        ("com.android.phone", "FS/data/anr/anr_2025-07-01-12-00-00-123"),
        ("com.old.app", "FS/data/anr/anr_2025-06-30-09-00-00-000"),
    ]
    assert trace.header.processes[0].also_in == ("bugreport-tokay-BP2A.txt:12",)
    assert len(load(data, process="com.old.app").events) == len(load(recorded(3)).events)


def test_a_zip_with_zero_runs_is_not_clipped(report: bytes, tmp_path: Path) -> None:
    """A bugreport stores binary members: a megabyte of zeros must not stop the reading."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(zipfile.ZipInfo("FS/data/misc/zeros.bin"), bytes(3 << 20))
        archive.writestr("FS/data/anr/anr_2025-07-01", report)
    path = tmp_path / "b.zip"
    path.write_bytes(out.getvalue())
    assert len(load(path).header.processes) == 2


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (anr_report([ProcessText(1, "a.b")]), "no 'LongRunningMethods:' line"),
        (bugreport_zip({}), "zip archive (0 ANR or bugreport text(s) in it) with no"),
        (b"PK\x03\x04 not really a zip", "damaged zip"),
    ],
)
def test_nothing_to_read_is_one_line(data: bytes, words: str) -> None:
    with pytest.raises(TraceError) as caught:
        load(data)
    assert words in str(caught.value) and "\n" not in str(caught.value)


def test_cut_and_damaged_base64(report: bytes) -> None:
    at = report.index(b"LongRunningMethods: ") + len(b"LongRunningMethods: ")
    cut = report[: at + 1001] + b"\n"  # mid-quantum, mid-dump (of some 2.9k characters)
    trace = load(cut)
    trace.validate()
    codes = {d.code for d in trace.diagnostics}
    assert {"truncated-base64", "truncated-block"} <= codes
    bad = report[: at + 1000] + b"!" + report[at + 1001 :]
    trace = load(bad)
    trace.validate()
    assert "bad-base64" in {d.code for d in trace.diagnostics}


def test_crlf_and_a_bom() -> None:
    text = anr_report([ProcessText(9, "com.x", recorded(4))]).replace(b"\n", b"\r\n")
    trace = load(b"\xef\xbb\xbf" + text)
    assert trace.header.processes[0].name == "com.x" and len(trace.events) > 0


def test_summary_first_or_last_reads_the_same() -> None:
    """Into an ANR the summary packet comes first; into a file after the current blocks."""
    from_anr, from_file = load(recorded(5, to="anr")), load(recorded(5, to="file"))
    assert from_anr.header.end_ns == from_file.header.end_ns is not None
    assert from_anr.header.monotonic_offset_ns == from_file.header.monotonic_offset_ns
    assert from_anr.events.wall is not None and from_file.events.wall is not None
    assert np.array_equal(from_anr.events.wall, from_file.events.wall)
    assert np.array_equal(from_anr.events.method, from_file.events.method)
