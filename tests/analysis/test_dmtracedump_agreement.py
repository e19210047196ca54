"""On balanced traces, per-method exclusive, inclusive and call counts summed over all threads
equal Debian's dmtracedump exactly on its clock (the first time field of each record)."""

from __future__ import annotations

import gzip
import shutil
import subprocess
from pathlib import Path

import pytest

import traceview
from support.corpus import corpus_files
from support.dmtracedump_text import parse
from traceview.analysis.calls import build_calls
from traceview.analysis.profile import profile
from traceview.model import Clock, Trace
from traceview.synth import generate
from traceview.writer import write

pytestmark = [
    pytest.mark.dmtracedump,
    pytest.mark.skipif(shutil.which("dmtracedump") is None, reason="dmtracedump not installed"),
]

ACCEPTED = {1, 2, 3}  # dmtracedump reads combined V1 non-streaming files only
UNBALANCED = {"exit-without-enter", "forced-exit", "stray-exit-dropped"}


def dmtracedump(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["dmtracedump", str(path)], capture_output=True, text=True, errors="replace"
    )


def compare(path: Path, trace: Trace) -> int:
    """Compare one file; return the number of methods compared."""
    run = dmtracedump(path)
    assert run.returncode == 0, run.stderr
    total, rows = parse(run.stdout)
    calls = build_calls(trace)
    calls.validate()
    clock = "cpu" if "cpu" in trace.clocks else "wall"
    prof = profile(calls, clock=clock)
    prof.validate()
    assert prof.total(clock) == total * 1000
    labels: dict[str, list[int]] = {}
    for m in range(len(trace.methods)):
        labels.setdefault(trace.methods.label(m), []).append(m)
    compared = 0
    for row in rows.values():
        if row.name == "(toplevel)":
            assert prof.toplevel[clock] == row.excl * 1000
            continue
        found = labels.get(row.name, [])
        if len(found) != 1:
            continue  # (unknown), or two ids with one name: not comparable by name
        m = found[0]
        assert prof.excl[clock][m] == row.excl * 1000, row.name
        assert prof.incl[clock][m] == row.incl * 1000, row.name
        if row.incl:  # call counts are printed in the inclusive section only
            assert (prof.calls[m], prof.recursive_calls[m]) == (row.calls, row.recursive)
        compared += 1
    return compared


@pytest.mark.parametrize(
    ("seed", "clock", "threads", "style"),
    [
        (1, "dual", 4, "art"),
        (2, "thread-cpu", 3, "dalvik"),
        (3, "wall", 2, "art"),
        (4, "dual", 8, "dalvik"),
    ],
)
def test_generated_balanced_traces_agree(
    tmp_path: Path, seed: int, clock: Clock, threads: int, style: str
) -> None:
    trace = generate(
        records=20_000, threads=threads, seed=seed, clock=clock, balanced=True, style=style
    )
    path = tmp_path / "gen.trace"
    write(trace, path, variant="regular")
    loaded = traceview.load(path)
    loaded.validate()
    assert compare(path, loaded) > 10


def balanced_corpus() -> list[Path]:
    out = []
    for path in corpus_files():
        try:
            trace = traceview.load(path)
        except traceview.TraceError:
            continue
        if trace.header.variant != "regular" or trace.header.version not in ACCEPTED:
            continue
        if {d.code for d in build_calls(trace).diagnostics} & UNBALANCED:
            continue
        out.append(path)
    return out


@pytest.mark.parametrize("path", balanced_corpus(), ids=lambda p: p.name)
def test_balanced_corpus_traces_agree(path: Path, tmp_path: Path) -> None:
    trace = traceview.load(path)
    trace.validate()
    if path.suffix == ".gz":  # dmtracedump reads plain files only
        plain = tmp_path / path.stem
        plain.write_bytes(gzip.decompress(path.read_bytes()))
        path = plain
    if dmtracedump(path).returncode != 0:
        pytest.skip("dmtracedump does not accept this file")
    compare(path, trace)
