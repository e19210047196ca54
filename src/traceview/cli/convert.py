"""`traceview convert IN OUT [--to VARIANT] [--version N] [--clock C] [--style S] [--generation G]`
reads any trace and writes it as another variant (default: a regular v1-v3 file that old
traceview, Android Studio and dmtracedump open). An Android 16 long-running dump (a file, or
one process of an ANR report with `--process`) becomes a regular trace in µs; an all-methods
dump, which has no times, is refused for every variant but `low-overhead`.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from traceview.cli.parser import Parser
from traceview.model import Trace, TraceError
from traceview.readers import load
from traceview.writer import VARIANTS, split_paths, write

CLOCKS = ("thread-cpu", "wall", "dual", "global")


def parser() -> argparse.ArgumentParser:
    """The argument parser (prog `traceview convert`)."""
    p = Parser(
        prog="traceview convert",
        description="Write a trace as another variant (streaming -> regular by default).",
    )
    p.add_argument("input", help="trace to read (any variant, gzip too)")
    p.add_argument("output", help="file to write (for --to split: BASE.key and BASE.data)")
    p.add_argument("--to", choices=VARIANTS, default="regular", help="variant (default regular)")
    p.add_argument("--version", type=int, choices=(1, 2, 3), help="V1 version (default: kept)")
    p.add_argument("--clock", choices=CLOCKS, help="clock to write (drop one clock of dual)")
    p.add_argument("--style", choices=("art", "dalvik"), help="key lines as ART or Dalvik wrote")
    p.add_argument(
        "--process",
        metavar="NAME|PID",
        help="an ANR report or bugreport zip: whose dump to convert (default: the first)",
    )
    p.add_argument(
        "--generation",
        choices=("alpha", "beta", "gamma"),
        default="beta",
        help="V2 entry-block layout (default beta, as Android 15/16 write)",
    )
    return p


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return a.resolve() == b.resolve()


def _targets(output: Path, variant: str) -> list[Path]:
    return list(split_paths(output)) if variant == "split" else [output]


def describe(trace: Trace, variant: str, paths: list[Path]) -> str:
    """The one line `convert` prints about what it wrote."""
    h = trace.header
    names = " + ".join(str(p) for p in paths)
    return (
        f"wrote {names}: {variant}, clock={h.clock}, {len(trace.events):,} records, "
        f"{len(trace.threads)} threads, {len(trace.methods)} methods"
    )


def main(argv: list[str]) -> int:
    """Convert; 0 on success, 2 (one line on stderr) for a bad input or a refused output."""
    args = parser().parse_args(argv)
    src, out = Path(args.input), Path(args.output)
    inputs = [src, *split_paths(src)]  # `IN` may name a .key/.data pair by its base
    targets = _targets(out, args.to)
    if any(_same_file(i, t) or i.resolve() == t.resolve() for i in inputs for t in targets):
        print(f"traceview convert: refusing to overwrite the input {src}", file=sys.stderr)
        return 2
    try:
        trace = load(src, process=args.process)
        paths = write(
            trace,
            out,
            variant=args.to,
            version=args.version if args.to not in ("v2", "v2-streaming") else None,
            clock=args.clock,
            style=args.style,
            generation=args.generation,
        )
    except (TraceError, OSError, ValueError, ModuleNotFoundError) as exc:
        print(f"traceview convert: {exc}", file=sys.stderr)
        return 2
    print(describe(_with_clock(trace, args.clock), args.to, paths))
    return 0


def _with_clock(trace: Trace, clock: str | None) -> Trace:
    if clock is None or clock == trace.header.clock:
        return trace
    from traceview.writer import with_clock

    return with_clock(trace, clock)  # type: ignore[arg-type]
