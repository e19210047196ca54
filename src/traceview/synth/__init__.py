"""Synthetic traces: `generate(...)` invents deterministic, realistic method traces (the demo,
benchmarks and property tests) as a `Trace`; `traceview.writer` writes them to any variant.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from traceview.synth.generate import generate, make_demo

__all__ = ["demo_path", "generate", "make_demo"]


def demo_path() -> Path:
    """The bundled demo trace, gzipped (v3 dual, ART style; `python -m traceview.synth --demo`)."""
    return Path(str(resources.files("traceview") / "data" / "demo.trace.gz"))
