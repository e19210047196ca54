"""`traceview -r TRACE`: traceview's regression-only text dump, computed by the engine.

Computes the full profile (both clocks, every thread and all threads, parents/children)
without a call table, one compiled pass over the records (`analysis.direct`, two workers on a
machine with two cores unless TRACEVIEW_WORKERS says otherwise) — for a large V1 trace of which
the whole is asked, as it is read, keeping none of its records (cli/streamed.py) — and prints
the plain, diffable text of `exporters.dump.regress`. `TRACEVIEW_TIMINGS=1` prints the phase
timings on stderr (calls: sizing the stacks, or the streamed first read; profile: seconds
summed over the workers).
"""

from __future__ import annotations

import os
import sys
import time

from traceview.analysis.view import View
from traceview.cli import options
from traceview.cli.memory import reuse_freed_memory
from traceview.cli.parser import Parser
from traceview.cli.streamed import open_streamed, whole_trace
from traceview.exporters import get


def main(argv: list[str]) -> int:
    """Print the regression dump of a selection; 0 on success."""
    parser = Parser(prog="traceview -r", description="regression-only text dump of a trace")
    options.add_trace(parser)
    options.add_selection(parser)
    options.add_output(parser, json=False)
    args = parser.parse_args(argv)
    timings = os.environ.get("TRACEVIEW_TIMINGS") == "1"
    start = (time.perf_counter(), time.process_time())
    streamed = open_streamed(args.trace, args, None, False) if whole_trace(args) else None
    session = streamed or options.open_trace(args.trace, args)
    loaded = (time.perf_counter(), time.process_time())
    reuse_freed_memory()
    view = View(session, options.query(args, session))
    view.profile()
    analysed = (time.perf_counter(), time.process_time())
    options.write(get("dump"), view, args.output)
    sys.stdout.flush()
    done = (time.perf_counter(), time.process_time())
    if timings:
        steps = [
            f"load={loaded[0] - start[0]:.3f}s/{loaded[1] - start[1]:.3f}cpu",
            f"calls={session.timings.get('calls', 0.0):.3f}s",
            f"profile={session.timings.get('profile', 0.0):.3f}s",
            f"analysis={analysed[0] - loaded[0]:.3f}s/{analysed[1] - loaded[1]:.3f}cpu",
            f"output={done[0] - analysed[0]:.3f}s/{done[1] - analysed[1]:.3f}cpu",
        ]
        print(f"timings: {' '.join(steps)} total={done[0] - start[0]:.3f}s", file=sys.stderr)
    return 0
