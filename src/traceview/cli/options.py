"""The options every command shares, defined once: the trace, the selection (`--thread`,
`--clock`, `--from`/`--to`, `--time`, `--my-code`, `--mapping`), the output (`--json`, `-o`),
plus the one function that opens a trace for every command, the one that writes the parsed selection
as the user's words (`Ask`, resolved into a `Query` by `Session.resolve`, as every front end's),
the one that builds a format's own options from the flags given (refusing a flag the format
does not take) and the one that writes a format's output.

Errors a user can cause raise `CliError` (one line; `cli/__init__.py` prints it and exits 2).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from traceview.analysis.ask import Ask
from traceview.analysis.ask import duration_ns as parse_duration
from traceview.analysis.query import Query, Rename
from traceview.analysis.session import Session
from traceview.analysis.timebase import TIME_BASES
from traceview.exporters import Format
from traceview.model import printable

if TYPE_CHECKING:
    from traceview.api.traces import Origin


class CliError(Exception):
    """A user error: printed as one line `traceview: <message>`, exit status 2."""


def duration_ns(text: str) -> int:
    """`1.5s`, `300ms`, `20us`, `800ns` -> ns (`analysis.ask.duration_ns`); a bad value is
    a one-line `CliError`."""
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise CliError(str(exc)) from None


def time_text(text: str) -> str:
    """A `--from`/`--to` time checked now (`duration_ns`: a bad one fails before the trace is
    read) and kept as the user wrote it."""
    duration_ns(text)
    return text


_SIZE = re.compile(r"([0-9]{1,15}(?:\.[0-9]{1,9})?)\s*([kmgt]?)(?:i?b)?", re.IGNORECASE)


def size_bytes(text: str) -> int:
    """`4G`, `500M`, `1.5GiB`, `64k`, `1048576` -> bytes (binary multiples, positive); a bad
    value is a one-line `CliError`."""
    m = _SIZE.fullmatch(text.strip())
    value = (
        int(float(m.group(1)) * (1 << (10 * "_kmgt".index(m.group(2).lower() or "_")))) if m else 0
    )
    if value <= 0:
        raise CliError(f"bad size {text!r}: a positive number with K, M, G or T (e.g. 500M, 2G)")
    return value


def add_trace(parser: argparse.ArgumentParser) -> None:
    """The trace argument (a path, a .key/.data base, or - for stdin) and how to load it."""
    parser.add_argument("trace", help="a .trace file (any variant, gzip too), a split base, or -")
    add_loading(parser)


def add_loading(parser: argparse.ArgumentParser) -> None:
    """--max-size, --salvage and --process: how much a trace may hold, reading damaged data
    anyway, and which process's dump of an ANR report to read."""
    g = parser.add_argument_group("loading")
    g.add_argument(
        "--max-size",
        type=size_bytes,
        metavar="SIZE",
        help="read at most this much of a trace, decompressed (default 4G)",
    )
    g.add_argument(
        "--salvage",
        action="store_true",
        help="read data damaged beyond use anyway (best effort, with diagnostics)",
    )
    g.add_argument(
        "--process",
        metavar="NAME|PID",
        help="an ANR report or bugreport zip: whose dump to read (default: the first; "
        "`traceview info` lists them)",
    )


def add_selection(parser: argparse.ArgumentParser) -> None:
    """--thread, --clock, --from, --to, --time, --my-code, --mapping: the selection every
    numbers command takes."""
    g = parser.add_argument_group("selection")
    g.add_argument(
        "--thread",
        action="append",
        metavar="NAME|ID",
        help="a thread by name or id (repeatable; a shared name selects all its threads)",
    )
    g.add_argument("--clock", choices=("cpu", "wall"), help="clock to sort and lay out by")
    g.add_argument(
        "--from", dest="start", type=time_text, metavar="TIME", help="range start (e.g. 1.5s)"
    )
    g.add_argument("--to", dest="stop", type=time_text, metavar="TIME", help="range end")
    add_time(g)
    g.add_argument(
        "--my-code",
        nargs="+",
        action="extend",
        metavar="PREFIX",
        help="keep only frames of these packages (others fold into their caller)",
    )
    add_mapping(g)


def add_time(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """--time trace|monotonic: the time base of the times shown and of --from/--to (part of
    the selection; alone for commands without one, e.g. anr)."""
    parser.add_argument(
        "--time",
        choices=TIME_BASES,
        help="times from the trace's start (default) or on CLOCK_MONOTONIC, as logcat -v "
        "monotonic and Perfetto show them (then --from/--to are CLOCK_MONOTONIC too); "
        "refused for a trace that does not record where it sits on CLOCK_MONOTONIC",
    )


def add_mapping(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """--mapping FILE (part of the selection; alone for commands without one, e.g. info)."""
    parser.add_argument(
        "--mapping",
        metavar="FILE",
        help="ProGuard/R8 mapping.txt: show original class and method names",
    )


def add_listening(parser: argparse.ArgumentParser, port: int, port_help: str) -> None:
    """--host, --port, --allow-host: where a server listens and the Host names it answers."""
    g = parser.add_argument_group("listening")
    g.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    g.add_argument("--port", type=int, default=port, help=f"port to listen on ({port_help})")
    g.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a Host name the server answers to besides loopback (with a non-loopback --host)",
    )


def add_output(parser: argparse.ArgumentParser, json: bool = True) -> None:
    """-o FILE (- for stdout) and, for commands with a JSON form, --json."""
    parser.add_argument("-o", "--output", metavar="FILE", help="write here (- for stdout)")
    if json:
        parser.add_argument("--json", action="store_true", help="write JSON")


def open_trace(
    path: str | bytes, args: argparse.Namespace | None = None, only_clock: str | None = None
) -> Session:
    """Load a trace for any command (the one open path) and start its analysis session;
    `args` carries --max-size, --salvage and --process (`add_loading`).

    `only_clock` ("cpu" or "wall"): a command that reads one clock has only its times decoded
    when the trace has it and another (80 MB less per 10M records; `readers.load`).
    """
    from traceview.readers import DEFAULT_MAX_SIZE, load

    max_size = getattr(args, "max_size", None) or DEFAULT_MAX_SIZE
    trace = load(
        path,
        max_size=max_size,
        salvage=bool(getattr(args, "salvage", False)),
        process=getattr(args, "process", None),
        clocks=None if only_clock is None else (only_clock,),
    )
    return Session(trace)


def open_identified(
    path: str, args: argparse.Namespace | None = None, labels: tuple[tuple[str, str], ...] = ()
) -> tuple[Session, Origin]:
    """`open_trace` and the trace's `Origin` for the tables (docs/dataset.md): the SHA-256
    of its bytes (stdin's bytes are read first, then parsed), its file's name, size and date,
    and `labels`; one process of an ANR report or bugreport gets an id of its own."""
    import time

    from traceview.api.traces import Origin
    from traceview.dataset.keys import Identity, identify, process_id, trace_date, trace_id
    from traceview.readers import DEFAULT_MAX_SIZE
    from traceview.readers.files import read_bounded

    if path == "-":
        max_size = getattr(args, "max_size", None) or DEFAULT_MAX_SIZE
        data, _ = read_bounded(sys.stdin.buffer, max_size)
        session = open_trace(data, args)
        ident = Identity(trace_id(data), "-", len(data), time.time())
    else:
        session = open_trace(path, args)
        ident = identify(Path(path))
    tid = ident.trace_id
    process = getattr(args, "process", None)
    if process is not None:
        tid = process_id(tid, process)
    date = trace_date(session.trace.header, ident.mtime)
    return session, Origin(tid, ident.name, ident.size, date, labels)


def ask(args: argparse.Namespace, session: Session | None = None, main: bool = False) -> Ask:
    """The parsed selection as the user's words; reads `--mapping` (`rename`). `main`: no
    --thread means the main thread (else every thread)."""
    return Ask(
        threads=tuple(getattr(args, "thread", None) or ()),
        main=main,
        clock=getattr(args, "clock", None),
        start=getattr(args, "start", None),
        end=getattr(args, "stop", None),
        my_code=tuple(getattr(args, "my_code", None) or ()),
        rename=rename(getattr(args, "mapping", None), session),
        time=getattr(args, "time", None),
    )


def resolve(session: Session, words: Ask) -> Query:
    """`session.resolve(words)`: its notes (a name matching several threads) go to stderr, a
    bad word is a one-line `CliError`."""
    try:
        resolved = session.resolve(words)
    except ValueError as exc:  # an unknown thread (with close names), clock or range
        raise CliError(printable(str(exc))) from None
    for note in resolved.notes:
        print(f"traceview: note: {printable(note)}", file=sys.stderr)
    return resolved.query


def query(args: argparse.Namespace, session: Session, default_main: bool = False) -> Query:
    """The parsed selection as a checked `Query` (`ask`, then `resolve`)."""
    return resolve(session, ask(args, session, default_main))


def rename(mapping: str | None, session: Session | None = None) -> Rename | None:
    """The renaming of a `--mapping` file, or None without one; notes on skipped lines go to
    stderr. With `session`, only the trace's classes get their members read (a large app's
    mapping has tens of thousands of classes; a trace names a few hundred)."""
    if mapping is None:
        return None
    from traceview.analysis.rename import MappingRename
    from traceview.model import TraceFormatError
    from traceview.readers.mapping import read_mapping

    try:
        classes = None
        if session is not None:
            classes = {c.replace("/", ".") for c in session.trace.methods.class_name}
        parsed = read_mapping(mapping, classes)
    except OSError as exc:
        raise CliError(f"--mapping {printable(mapping)}: {exc.strerror or exc}") from None
    except TraceFormatError as exc:
        raise CliError(printable(str(exc))) from None
    for note in parsed.notes:
        print(f"traceview: note: {printable(mapping)}: {note}", file=sys.stderr)
    return MappingRename(parsed)


@contextmanager
def output(target: str | None, binary: bool = False) -> Iterator[IO[Any]]:
    """The stream to write to: stdout for None or -, else the file (written whole or not at
    all: a temporary file renamed into place)."""
    if target in (None, "-"):
        yield sys.stdout.buffer if binary else sys.stdout
        return
    path = Path(target)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        if binary:
            with tmp.open("wb") as f:
                yield f
        else:  # like the terminal: a stray unencodable character never raises
            with tmp.open("w", encoding="utf-8", errors="backslashreplace") as f:
                yield f
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def format_options(
    command: str, fmt: Format, args: argparse.Namespace, flags: dict[str, str]
) -> Any:
    """`fmt`'s own options from the format flags the user gave. `flags` maps each option the
    command offers to its spelling (`{"merge_threads": "--merge-threads"}`); a flag not given
    is None in `args`. A given flag the format does not take is a one-line `CliError`."""
    takes = fmt.flags()
    given = {name: getattr(args, name) for name in flags if getattr(args, name, None) is not None}
    for name in given:
        if name not in takes:
            offered = ", ".join(flags[n] for n in flags if n in takes)
            what = f"it takes: {offered}" if offered else "it takes none of these options"
            if not takes:
                what = "it takes no options"
            raise CliError(f"{command}: {flags[name]} does not apply to {fmt.name} ({what})")
    return fmt.options(**given)


def write(fmt: Format, subject: Any, target: str | None, options: Any = None) -> None:
    """Render `subject` with the format `fmt` (its own `options`, default its defaults) to
    `target`: stdout for None or -, else the file; a `directory` format writes the directory
    `target` (never stdout; a missing optional dependency is a one-line error)."""
    if fmt.subject == "directory":
        if target in (None, "-"):
            raise CliError(f"{fmt.name} writes a directory: give -o DIR")
        try:
            fmt.export(subject, target, options)
        except ImportError as exc:
            raise CliError(str(exc)) from None
        return
    with output(target, fmt.binary) as out:
        fmt.export(subject, out, options)
