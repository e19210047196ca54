"""The readers are imported as the bytes call for them (readers/sniff.py): a V1 trace's
command never imports the Android 16, ANR or simpleperf readers (about a tenth of a small
trace's `traceview info`), and each of those is still found for its own files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.corpus import corpus_path
from traceview.model import Variant
from traceview.synth import generate
from traceview.writer import write

OTHERS = (
    "traceview.readers.lowoverhead",
    "traceview.readers.lowoverhead.anr",
    "traceview.readers.simpleperf",
)
PROBE = (
    "import sys\n"
    "from traceview.cli import main\n"
    "code = main(sys.argv[1:])\n"
    f"print(code, sorted(m for m in {OTHERS!r} if m in sys.modules))\n"
)


def imported(*argv: str) -> tuple[str, str]:
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[2] / "src")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    run = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, env=env, check=False
    )
    code, _, modules = run.stdout.strip().splitlines()[-1].partition(" ")  # after the report
    return code, modules


@pytest.mark.parametrize("variant", ["regular", "streaming", "v2"])
def test_a_method_trace_imports_no_other_reader(tmp_path: Path, variant: Variant) -> None:
    path = tmp_path / "t.trace"
    write(generate(records=2000, threads=2, seed=5), str(path), variant=variant)
    assert imported("info", str(path)) == ("0", "[]")


def test_the_other_readers_are_found_for_their_files(tmp_path: Path) -> None:
    """An Android 16 dump (written by our writer) and a simpleperf recording (the corpus's)
    are read by their own readers, imported as `READERS`' order reaches them."""
    path = tmp_path / "dump.trace"
    write(generate(records=2000, threads=2, seed=5), str(path), variant="low-overhead")
    code, modules = imported("info", str(path))
    assert code == "0" and "'traceview.readers.lowoverhead'" in modules
    recording = corpus_path("firefox-profiler/simpleperf-cpu-clock.trace")
    code, modules = imported("info", str(recording))
    assert code == "0" and "'traceview.readers.simpleperf'" in modules
