"""`python -m traceview` runs the command line."""

from traceview.cli import run

run()
