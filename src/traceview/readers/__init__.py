"""Readers: detect the variant from the bytes and dispatch to one module per on-disk variant.

`load(path | "-" | bytes | file)` opens what may be read (`files.py`: regular files, gzip,
stdin; bounded by `max_size`, stopped at a 1 MiB run of 0x00 or 0xFF), asks `sniff.choose` which
reader the first bytes call for and hands it the bytes: `v1/regular` (key + data), `v1/split`
(split pair / bare data), `v1/streaming` (0xF1-0xF3), `v2` (ART V2), `lowoverhead` (Android 16
dumps) or `lowoverhead/anr` (ANR reports and bugreport zips carrying them; `process` picks one),
all behind the same `sniff` + `read` contract and ending in the one assembly step
(`assemble.py`). Regular files
are decoded from disk in chunks; the other variants are read whole. Records that are mostly
nonsense are refused (`verdict.py`) unless `salvage=True`. A command that reads one clock asks
for its time column alone (`clocks`): V1 records are then decoded for it only.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from pathlib import Path
from typing import BinaryIO

from traceview.model import Diagnostic, Trace, TraceFormatError
from traceview.readers.files import (
    DEFAULT_MAX_SIZE,
    STDIN,
    escape,
    fill_note,
    gunzip,
    open_regular,
    read_bounded,
    read_stdin,
    too_big,
)
from traceview.readers.sniff import choose, is_gzip
from traceview.readers.source import Source
from traceview.readers.v1 import split
from traceview.readers.verdict import SAMPLE, judge, look

__all__ = ["DEFAULT_MAX_SIZE", "load"]

_HEAD = 1 << 16

Input = str | os.PathLike[str] | bytes | bytearray | memoryview | BinaryIO


def load(
    source: Input,
    *,
    max_size: int = DEFAULT_MAX_SIZE,
    salvage: bool = False,
    process: str | int | None = None,
    clocks: Collection[str] | None = None,
) -> Trace:
    """Read a trace from a path, `"-"` (stdin), bytes or a binary file object; `Trace.source`
    is the path. At most `max_size` bytes are read (a file, gzip output, stdin); records that
    are mostly nonsense raise unless `salvage` asks for a best-effort reading. An ANR report
    or a bugreport zip is read too: `process` (a name or pid) picks which of its processes'
    dumps (default: the first; `Header.processes` lists them). `clocks` ("cpu", "wall"): the
    time columns to keep when the trace has one of them and another (default: every clock)."""
    how = _How(max_size, salvage, process, clocks)
    return _kept(_load(source, how), clocks)


def _kept(trace: Trace, clocks: Collection[str] | None) -> Trace:
    """`trace` without the time columns of clocks not in `clocks` when it has one of them."""
    have = trace.events.clocks
    if clocks is None or not any(c in clocks for c in have):
        return trace
    ev = trace.events
    events = replace(
        ev,
        cpu=ev.cpu if "cpu" in clocks else None,
        wall=ev.wall if "wall" in clocks else None,
    )
    return trace if events.clocks == have else replace(trace, events=events)


def _load(source: Input, how: _How) -> Trace:
    max_size = how.max_size
    if isinstance(source, str) and source == STDIN:
        return _labelled(lambda: _load_stream(read_stdin(max_size), STDIN, how), "-")
    if isinstance(source, str | os.PathLike):
        path = Path(source)
        return _labelled(lambda: _load_path(path, how), escape(path))
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source) if isinstance(source, bytearray) else source
        if len(data) > max_size:
            raise too_big(len(data), max_size)
        return _load_bytes(data, None, how)
    name = getattr(source, "name", None)
    label = name if isinstance(name, str) else None
    stream = source

    def read() -> Trace:
        return _load_stream(read_bounded(stream, max_size), label, how)

    return _labelled(read, escape(label)) if label else read()


def _labelled(read: Callable[[], Trace], label: str) -> Trace:
    try:
        return read()
    except TraceFormatError as err:
        raise (err if err.path else err.with_path(label)) from None


@dataclass(frozen=True)
class _How:
    """What `load` was asked: the size bound, salvage, the process of an ANR report, the
    clocks to keep."""

    max_size: int
    salvage: bool
    process: str | int | None
    clocks: Collection[str] | None


def _load_stream(got: tuple[bytes, Diagnostic | None], label: str | None, how: _How) -> Trace:
    data, note = got
    return _noted(_load_bytes(data, label, how), [note] if note else [])


def _noted(trace: Trace, notes: list[Diagnostic]) -> Trace:
    trace.diagnostics[:0] = notes
    return trace


def _load_path(path: Path, how: _How) -> Trace:
    if not os.path.lexists(path):
        pair = split.find_pair(path)
        if pair is None:
            raise FileNotFoundError(
                errno.ENOENT,
                f"no such file (nor {escape(path)}.key + {escape(path)}.data)",
                escape(path),
            )
        return _load_split(*pair, str(path), how)
    with open_regular(path) as f:
        head = f.read(_HEAD)
        if is_gzip(head):
            size = os.fstat(f.fileno()).st_size
            if size > how.max_size:
                raise too_big(size, how.max_size)
            f.seek(0)
            return _load_bytes(f.read(), str(path), how)
        name, reader = choose(head)
        _check_process(name, how)
        if name == "data" or (name == "regular" and path.suffix == ".key"):
            pair = split.find_pair(path)
            if pair is not None:
                return _load_split(*pair, str(path), how)
        src = Source(file=f)  # regular and data: decoded chunk by chunk; others read whole
        if name == "anr":  # text or a zip: no fill-run clipping (a zip may hold zero runs)
            if src.size > how.max_size:
                raise too_big(src.size, how.max_size)
            return _anr(src, str(path), how)
        notes = _clip(src, "file", how.max_size)
        seen = look(src.read(0, SAMPLE))
        trace = _noted(reader.read(src, source=str(path), clocks=how.clocks), notes)
        return judge(trace, how.salvage, seen)


def _anr(src: Source, source: str | None, how: _How) -> Trace:
    """The dump `how.process` picks of an ANR report or bugreport zip (sniff imported it)."""
    from traceview.readers.lowoverhead import anr

    return anr.read(src, source=source, process=how.process, max_size=how.max_size)


def _check_process(name: str, how: _How) -> None:
    """`process` picks a dump of an ANR report; anything else has one trace."""
    if how.process is not None and name != "anr":
        raise TraceFormatError(
            f"a process ({how.process}) was asked for, but this is not an ANR report or a "
            f"bugreport zip (it reads as {name}): it holds one trace",
            expected="an ANR report or a bugreport zip",
            found=name,
        )


def _clip(src: Source, where: str, max_size: int) -> list[Diagnostic]:
    """Stop `src` at a 1 MiB fill run; what remains must fit `max_size` (a sparse tail past
    the bound is cut, not refused)."""
    at = src.clip_fill_run(until=max_size + (1 << 20))
    if src.size > max_size:
        raise too_big(src.size, max_size)
    return [fill_note(at, where)] if at is not None else []


def _load_split(key: Path, data: Path, label: str, how: _How) -> Trace:
    with open_regular(key) as kf, open_regular(data) as df:
        data_src = Source(file=df)
        notes = _clip(data_src, "data file", how.max_size)
        seen = look(data_src.read(0, SAMPLE))
        trace = split.read_split(Source(file=kf), data_src, source=label, clocks=how.clocks)
        return judge(_noted(trace, notes), how.salvage, seen)


def _load_bytes(data: bytes | memoryview, source: str | None, how: _How, depth: int = 0) -> Trace:
    head = bytes(data[:_HEAD])
    if is_gzip(head):
        if depth >= 2:
            raise TraceFormatError("gzip inside gzip inside gzip", offset=0)
        inner, notes = gunzip(data, how.max_size)
        if not inner:
            raise TraceFormatError(
                "the gzip stream holds only one repeated byte (0x00 or 0xFF)",
                offset=0,
                expected="a trace",
            )
        return _noted(_load_bytes(inner, source, how, depth + 1), notes)
    name, reader = choose(head)
    _check_process(name, how)
    src = Source(data)
    if name == "anr":
        return _anr(src, source, how)
    notes = _clip(src, "input", how.max_size)
    seen = look(src.read(0, SAMPLE))
    trace = _noted(reader.read(src, source=source, clocks=how.clocks), notes)
    return judge(trace, how.salvage, seen)
