"""`python -m traceview`: the command line (`traceview.cli`)."""

from traceview.cli import run

run()
