"""The viewer's start on a small trace (the demo): no progress bar, so rich is not imported
(its import and its refresh thread sat on the first screen's path: benchmarks/RESULTS.md);
a large file on a terminal still shows one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROBE = """
import sys
from traceview.cli.demo import demo_trace
from traceview.cli.view import load_with_progress
s = load_with_progress(demo_trace())
print(len(s.calls) > 0, "rich" in sys.modules)
"""


def test_a_small_trace_loads_without_rich() -> None:
    src = str(Path(__file__).resolve().parents[2] / "src")
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")]))
    )
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False"]
