"""`--time monotonic`: times on CLOCK_MONOTONIC for a trace that records where it sits on that
clock (an Android 16 dump's summary packet, an ART trace's header start): `anr` in text and
JSON, `--from`/`--to` as points on CLOCK_MONOTONIC with the selection's JSON saying so, the SVG
flame graph's range; refused in one line (exit 2) naming the file and why for a trace without
an anchor (Dalvik, thread CPU only, no times, a dump without its summary packet)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from traceview.analysis.ask import Ask
from traceview.analysis.session import Session
from traceview.analysis.timebase import monotonic_text
from traceview.cli import main
from traceview.readers import load
from traceview.synth import generate
from traceview.writer import write
from traceview.writer.lowoverhead import dump_bytes
from traceview.writer.lowoverhead.anr import ProcessText, anr_report
from traceview.writer.lowoverhead.art import ArtRun, Method

HZ = 24_576_000
START = 10**11  # ticks: the dump's first event
LOOP, WORK = Method(0x7000_0000, "android.os.Looper", "loop"), Method(0x7000_0010, "a.B", "work")


def tick_ns(tick: int) -> int:
    """The newest ART's tick to ns (`TimestampCounter::GetNanoTime`, as the writer does)."""
    return int(10**9 / HZ * tick)


def hung() -> bytes:
    """main: Looper.loop (on the stack at the start) ran `work` for 2 s, then entered it again
    and was still in it at the dump, 3 s later."""
    run, t = ArtRun(), START
    run.start(100, "main", [LOOP], t)
    run.enter(100, WORK, t := t + HZ // 10)
    run.exit(100, t := t + 2 * HZ)
    run.enter(100, WORK, t := t + HZ // 10)
    return run.dump(t + 3 * HZ, to="anr")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("monotonic")
    paths = {name: root / name for name in ("anr_2025", "art", "dalvik", "cpu", "all", "old")}
    paths["anr_2025"].write_bytes(anr_report([ProcessText(100, "com.a", hung())]))
    write(generate(3000, threads=2, seed=3, clock="dual"), paths["art"])
    write(generate(800, threads=2, seed=3, clock="wall", style="dalvik"), paths["dalvik"])
    write(generate(800, threads=2, seed=3, clock="thread-cpu"), paths["cpu"])
    wall = generate(800, threads=2, seed=3, clock="wall", balanced=True)
    paths["all"].write_bytes(dump_bytes(wall, mode="all"))
    paths["old"].write_bytes(dump_bytes(wall, summary=False))
    return paths


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def test_anr_json_carries_clock_monotonic(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads(run(["anr", str(files["anr_2025"]), "--json", "--time", "monotonic"], capsys))
    h = load(files["anr_2025"]).header
    assert h.end_ns is not None and h.monotonic_offset_ns is not None
    assert doc["time"] == "monotonic"
    assert doc["dump_monotonic_ns"] == h.end_ns + h.monotonic_offset_ns
    loop, work = doc["open"][0]["frames"]
    offset = ArtRun().monotonic_offset_ns  # the writer's CLOCK_MONOTONIC − its ns
    assert loop["start_monotonic_ns"] == tick_ns(START) + offset and loop["before_tracing"]
    second = START + HZ // 10 + 2 * HZ + HZ // 10
    assert work["start_monotonic_ns"] == tick_ns(second) + offset
    assert work["open"] and work["at_least"] and work["open_us"] == pytest.approx(3e6, rel=1e-6)
    (slow,) = doc["slow"]
    assert slow["start_monotonic_ns"] == tick_ns(START + HZ // 10) + offset
    # the default time base shows the same facts: monotonic times are there when known
    plain = json.loads(run(["anr", str(files["anr_2025"]), "--json"], capsys))
    assert plain["time"] == "trace" and plain["open"] == doc["open"]


def test_anr_text_on_clock_monotonic(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads(run(["anr", str(files["anr_2025"]), "--json"], capsys))
    text = run(["anr", str(files["anr_2025"]), "--time", "monotonic"], capsys)
    assert "times on CLOCK_MONOTONIC" in text
    assert f"dump at {monotonic_text(doc['dump_monotonic_ns'])}\n" in text
    loop, work = doc["open"][0]["frames"]
    assert f"from ≤{monotonic_text(loop['start_monotonic_ns'])}  android.os.Looper.loop" in text
    assert f"≥3.000 s  from  {monotonic_text(work['start_monotonic_ns'])}    a.B.work" in text
    slow = doc["slow"][0]["start_monotonic_ns"]
    assert f"2.000 s  from  {monotonic_text(slow)}  [100]  a.B.work" in text
    trace_text = run(["anr", str(files["anr_2025"])], capsys)
    assert "CLOCK_MONOTONIC" not in trace_text and "dump at 5.200 s after the first" in trace_text


def test_from_to_are_points_on_clock_monotonic(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """`--time monotonic --from A --to B` selects what `--from A−zero --to B−zero` does, zero
    being the trace's start on CLOCK_MONOTONIC (an ART header's start time, µs)."""
    trace = load(files["art"])
    session = Session(trace)
    assert trace.header.start_time_us
    zero = session.origin + trace.header.start_time_us * 1000
    lo, hi = zero + 2_000_000, zero + 9_000_000
    words = [f"{lo // 1000}us", f"{hi // 1000}us"]
    argv = ["stats", str(files["art"]), "--json", "--time", "monotonic"]
    mono = json.loads(run([*argv, "--from", words[0], "--to", words[1]], capsys))
    plain = json.loads(
        run(["stats", str(files["art"]), "--json", "--from", "2ms", "--to", "9ms"], capsys)
    )
    assert mono["methods"] == plain["methods"] and mono["threads"] == plain["threads"]
    rng = mono["selection"]["time_range"]
    assert (rng["from_us"], rng["to_us"]) == (2000, 9000)
    assert (rng["from_monotonic_ns"], rng["to_monotonic_ns"]) == (lo, hi)
    assert mono["selection"]["time"] == "monotonic" and plain["selection"]["time"] == "trace"
    assert "from_monotonic_ns" not in plain["selection"]["time_range"]
    # the same words through the one resolution every front end uses
    q = session.resolve(Ask(start=words[0], end=words[1], time="monotonic")).query
    assert q.time == "monotonic" and q.time_range == session.time_range(2_000_000, 9_000_000)


def test_the_svg_range_on_clock_monotonic(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = load(files["art"])
    assert trace.header.start_time_us
    zero = Session(trace).origin + trace.header.start_time_us * 1000
    out = tmp_path / "f.svg"
    lo = f"{(zero + 1_000_000) // 1000}us"
    run(["export", str(files["art"]), "-o", str(out), "--time", "monotonic", "--from", lo], capsys)
    assert f"range {monotonic_text(zero + 1_000_000)} to " in out.read_text()
    assert " on CLOCK_MONOTONIC" in out.read_text()


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("dalvik", "Dalvik's header start time is the time of day"),
        ("cpu", "it has no wall clock"),
        ("all", "it has no times"),
        ("old", "the dump has no summary packet"),
    ],
)
@pytest.mark.parametrize("command", ["anr", "stats", "tree"])
def test_refused_in_one_line_without_an_anchor(
    files: dict[str, Path],
    name: str,
    why: str,
    command: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = str(files[name])
    assert main([command, path, "--time", "monotonic"]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and not captured.out, captured
    assert err[0].startswith(f"traceview: {path}: times cannot be shown on CLOCK_MONOTONIC: ")
    assert why in err[0]
    assert main([command, path, "--time", "trace"]) == 0  # the default base is always there
    capsys.readouterr()


def test_a_time_base_that_does_not_exist(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["anr", str(files["anr_2025"]), "--time", "boottime"]) == 2
    assert "invalid choice: 'boottime'" in capsys.readouterr().err
    session = Session(load(files["art"]))
    with pytest.raises(ValueError, match="time base must be trace or monotonic"):
        session.resolve(Ask(time="boottime"))
