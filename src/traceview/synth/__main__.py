"""`python -m traceview.synth --demo [PATH]`: regenerate the bundled demo trace."""

from __future__ import annotations

import sys
from pathlib import Path

from traceview.synth.generate import make_demo

if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] != ["--demo"]:
        sys.exit("usage: python -m traceview.synth --demo [PATH]")
    default = Path(__file__).resolve().parents[1] / "data" / "demo.trace.gz"
    make_demo(Path(args[1]) if len(args) > 1 else default)
