"""Command line: `traceview [COMMAND] ...`, one module per subcommand, each `main(argv) -> int`.

This is the only layer that prints or exits. `traceview TRACE` is `traceview view TRACE`;
`traceview -r TRACE` is the seed's regression-only text dump. Every failure a user can cause
(a bad trace, a missing file, memory, a bad option value) prints one line on stderr and
returns 2, never a traceback; a closed pipe (`traceview stats x | head`) ends quietly with 0.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
from collections.abc import Callable, Sequence

# Before numpy is first imported: OpenBLAS's thread pool (one thread a core) spins for about a
# tenth of a second of CPU once it starts, in every command, and no command does linear algebra
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# subcommand (= its module under traceview.cli) -> one-line help
COMMANDS: dict[str, str] = {
    "view": "open the trace in the local web viewer (default command)",
    "info": "variant, clock, threads, methods, options and diagnostics",
    "stats": "per-method statistics on both clocks",
    "tree": "top-down call tree (default: the main thread)",
    "anr": "what was open and slow when an ANR hit (ANR report, bugreport, Android 16 dump)",
    "convert": "write the trace as another variant",
    "report": "write the viewer as one self-contained HTML file",
    "diff": "compare runs: per-method changes, a regression gate for CI",
    "compare": "compare runs in the web viewer: Diff tab, differential flame graph, timelines",
    "export": "write folded stacks, SVG flame graph, Chrome, speedscope, pprof, Parquet",
    "demo": "open the bundled demo trace in the viewer",
    "dmtracedump": "dmtracedump's reports: profile, -h HTML, -o dump, -g graph, -d diff",
    "sql": "run SQL (DuckDB) over the tables of one or many traces, or of a dataset",
    "dataset": "keep many traces of many builds as one Parquet dataset (add, ls, rm)",
    "serve": "run a trace service: upload traces, share a viewer page for each",
    "record": "record a trace of an app over adb, pull it, check it, summarise it",
}

ONE_SHOT = ("-r", "dmtracedump", "stats", "info")  # print, then leave at once

USAGE = """usage: traceview TRACE                 open TRACE in the web viewer
       traceview -r TRACE              regression-only text dump (traceview's -r)
       traceview COMMAND [ARGS...]     see `traceview COMMAND --help`

commands:
{commands}
"""


def usage() -> str:
    """The top-level help text."""
    lines = "\n".join(f"  {name:<10} {text}" for name, text in COMMANDS.items())
    return USAGE.format(commands=lines)


def _entry(module: str) -> Callable[[list[str]], int]:
    mod = importlib.import_module(f"traceview.cli.{module}")
    entry: Callable[[list[str]], int] = mod.main
    return entry


def _safe_streams() -> None:
    """Never raise on output: characters the terminal's encoding lacks become escapes."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch `argv` (without the program name) to a subcommand; return the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    _safe_streams()
    if not args or args[0] in ("-h", "--help"):
        print(usage(), end="")
        return 0 if args else 2
    if args[0] in ("-V", "--version"):
        from traceview import __version__

        print(f"traceview {__version__}")
        return 0
    if args[0] == "-r":
        target, rest = "dump", args[1:]
    elif args[0] in COMMANDS:
        target, rest = args[0], args[1:]
    else:
        target, rest = "view", args
    collecting = gc.isenabled()
    if args[0] in ONE_SHOT:  # it frees its arrays by reference counts, then leaves at once:
        gc.disable()  # the cyclic collector would only walk the imports' objects, again and again
    try:
        return _run(target, rest)
    finally:
        if collecting:
            gc.enable()


def _run(target: str, rest: list[str]) -> int:
    """Run the subcommand `target` on `rest`: every failure a user can cause is one line."""
    from traceview.cli.errors import one_line

    try:
        return _entry(target)(rest)
    except SystemExit as exc:  # argparse: usage errors (2) and --help (0)
        return exc.code if isinstance(exc.code, int) else 2
    except BrokenPipeError:
        _quiet_stdout()
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # every other failure: one line, status 2
        line = one_line(exc)
        if line is None:
            raise
        print(f"traceview: {line}", file=sys.stderr)
        return 2


def _quiet_stdout() -> None:
    """After a closed pipe: point stdout at /dev/null so the final flush cannot fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def run() -> None:
    """Console-script entry point."""
    code = main()
    if sys.argv[1:2] and sys.argv[1] in ONE_SHOT:
        leave(code)
    sys.exit(code)


def leave(code: int) -> None:
    """End a one-shot command without the interpreter's teardown (freeing every array and
    module one by one: about 0.1 s of CPU after a 10M-record report): its output is written
    and flushed here, and it holds no other resource."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        _quiet_stdout()
        code = 0
    except (OSError, ValueError):
        pass
    os._exit(code)
