"""Command line: `traceview [COMMAND] ...`, one module per subcommand, each `main(argv) -> int`.

This is the only layer that prints or exits. `traceview TRACE` is `traceview view TRACE`;
`traceview -r TRACE` is the seed's regression-only text dump. Expected failures (a bad
trace, a missing file) print one line on stderr and return 2, never a traceback.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence

from traceview.model import TraceError

# subcommand (= its module under traceview.cli) -> one-line help
COMMANDS: dict[str, str] = {
    "view": "open the trace in the local web viewer (default command)",
    "info": "variant, clock, threads, methods, options and diagnostics",
    "stats": "per-method statistics on both clocks",
    "tree": "top-down call tree of a thread",
    "convert": "write the trace as another variant",
    "report": "write the viewer as one self-contained HTML file",
    "demo": "open the bundled demo trace in the viewer",
}

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


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch `argv` (without the program name) to a subcommand; return the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
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
    try:
        return _entry(target)(rest)
    except TraceError as exc:
        print(f"traceview: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        name = f": {exc.filename}" if getattr(exc, "filename", None) else ""
        print(f"traceview{name}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
