"""`traceview demo [VIEW OPTIONS]`: open the bundled demo trace (made by our own writer)."""

from __future__ import annotations

from importlib import resources

from traceview.cli import view


def demo_trace() -> str:
    """Path of the bundled demo trace (gzipped; the readers unwrap it)."""
    return str(resources.files("traceview") / "data" / "demo.trace.gz")


def main(argv: list[str]) -> int:
    """Run the viewer on the demo trace; the other arguments are `traceview view`'s."""
    return view.main([demo_trace(), *argv])
