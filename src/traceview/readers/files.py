"""What `load` may read, and how: regular files, gzip streams and standard input (`-`).

Anything else (a FIFO, a device, a directory, a socket) is refused by `os.stat` before it is
opened, so a FIFO without a writer cannot hang `open()`. gzip output and stdin are read with
a bound (`max_size`; gzip output also `RATIO` times the stream's size), and every byte source
stops at the first 1 MiB run of 0x00 or 0xFF (a sparse, preallocated or erased tail holds no
records). Paths in errors are escaped so that a name
with a newline or a terminal escape stays on one line.
"""

from __future__ import annotations

import io
import os
import stat
import sys
import zlib
from pathlib import Path
from typing import BinaryIO

from traceview.model import Diagnostic, TraceFormatError, printable
from traceview.readers.source import FillRun

DEFAULT_MAX_SIZE = 4 << 30  # 4 GiB: the largest trace (or gzip output) read by default
# gzip output is also bounded by the stream's size: real traces compress 3-12 times (corpus),
# deflate reaches about 1000 on repeated records (a 1 MB gzip made the CLI take 1.7 GB)
RATIO = 100
RATIO_FLOOR = 16 << 20  # any gzip may inflate this far (a trace, then a fill run being seen)
STDIN = "-"
_STEP = 1 << 20


Stamp = tuple[int, int, int, int, int]  # device, inode, size, modification and change times (ns)


def stamp(path: str | os.PathLike[str]) -> Stamp | None:
    """What tells that the file at `path` changed (or was replaced) since it was last seen:
    its device, inode, size and modification and change times in ns; None when there is no
    file. The one rule for every cache of what a file held (`sql`'s digests, the dataset's
    compaction, the service's mapping files)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def escape(path: str | os.PathLike[str]) -> str:
    """`path` for one line of text: control characters and undecodable bytes as `\\xNN`
    (`model.printable`, the rule every output shares)."""
    return printable(os.fspath(path))


def kind_of(mode: int) -> str | None:
    """What a non-regular file is, for the error line (None for a regular file)."""
    for test, name in (
        (stat.S_ISREG, None),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def open_regular(path: Path) -> BinaryIO:
    """Open `path` for reading if it is a regular file; a one-line error naming the (escaped)
    path otherwise. Never blocks on a FIFO."""
    try:
        info = os.stat(path)
    except OSError as err:
        raise type(err)(err.errno, err.strerror, escape(path)) from None
    what = kind_of(info.st_mode)
    if what is not None:
        raise TraceFormatError(
            f"{what}, not a trace file: traceview reads regular files, gzip and '-' (stdin)",
            path=escape(path),
        )
    try:
        # O_NONBLOCK: should the file be swapped for a FIFO after the stat, open() still
        # returns at once (and the fstat below refuses it)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as err:
        raise type(err)(err.errno, err.strerror, escape(path)) from None
    f = os.fdopen(fd, "rb")
    if kind_of(os.fstat(fd).st_mode) is not None:
        f.close()
        raise TraceFormatError("not a regular file", path=escape(path))
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    return f


def too_big(size: int, max_size: int, path: str | None = None) -> TraceFormatError:
    """The error for input past `max_size` (the CLI's --max-size raises the bound)."""
    return TraceFormatError(
        f"more than the {max_size} bytes allowed (max_size); raise the limit to read it",
        offset=max_size,
        found=f"{size} bytes" if size > max_size else None,
        path=path,
    )


def read_bounded(f: BinaryIO, max_size: int) -> tuple[bytes, Diagnostic | None]:
    """All of `f` (stdin, a pipe) up to `max_size` bytes, stopping at a 1 MiB fill run."""
    parts: list[bytes] = []
    total = 0
    fills = FillRun()
    while True:
        chunk = f.read(_STEP)
        if not chunk:
            return b"".join(parts), None
        total += len(chunk)
        if total > max_size:
            raise too_big(total, max_size)
        parts.append(chunk)
        found = fills.feed(chunk)
        if found is not None:
            found = max(found, 32)  # a data header ends in zero padding
            return b"".join(parts)[:found], fill_note(found, "input")


def read_stdin(max_size: int) -> tuple[bytes, Diagnostic | None]:
    """Standard input, bounded (`load("-")`)."""
    return read_bounded(sys.stdin.buffer, max_size)


def fill_note(at: int, where: str) -> Diagnostic:
    """The diagnostic for a source stopped at a run of one byte value."""
    return Diagnostic(
        "fill-run",
        f"1 MiB or more of one byte value (0x00 or 0xFF) from byte {at} of the {where} (a "
        "preallocated, sparse or erased tail, no trace data); reading stopped there",
        offset=at,
    )


def gunzip(data: bytes | memoryview, max_size: int) -> tuple[bytes, list[Diagnostic]]:
    """Decompress a gzip stream with at most `max_size` bytes of output, nor more than `RATIO`
    times the stream's size (past `RATIO_FLOOR`), stopping at a 1 MiB run of 0x00 or 0xFF;
    salvages what precedes damage or truncation."""
    dec = zlib.decompressobj(16 + zlib.MAX_WBITS)
    # one growing buffer, not a list of chunks to join: no second copy at the end, and freed
    # in one piece when the stream is refused (1 MiB chunks stayed in malloc's heaps)
    buf = io.BytesIO()
    view = memoryview(data)
    notes: list[Diagnostic] = []
    fills = FillRun()
    ratio_limit = max(RATIO_FLOOR, RATIO * len(view))
    limit = min(max_size, ratio_limit)
    total = at = 0
    pending = b""
    try:
        while not dec.eof:
            if not pending and at < len(view):
                pending, at = bytes(view[at : at + _STEP]), at + _STEP
            # max_length bounds every step's output: a bomb cannot inflate in one call
            out = dec.decompress(pending, _STEP)
            pending = dec.unconsumed_tail
            if not out and not pending and at >= len(view):
                break  # input used up and nothing more comes out: truncated
            total += len(out)
            if total > limit:
                if limit == max_size:
                    raise too_big(total, max_size)
                raise _inflating(min(at, len(view)) - len(pending), len(view), limit)
            buf.write(out)
            found = fills.feed(out)
            if found is not None:
                found = max(found, 32) if found else 0  # a data header ends in zero padding
                notes.append(fill_note(found, "decompressed data"))
                buf.truncate(found)
                return buf.getvalue(), notes
        if not dec.eof:
            notes.append(
                Diagnostic("truncated-gzip", "the gzip stream is cut short; read what it held")
            )
    except zlib.error as err:
        notes.append(
            Diagnostic("corrupt-gzip", f"the gzip stream is damaged ({err}); read what preceded")
        )
    result = buf.getvalue()  # the buffer's own bytes (no copy)
    if not result:
        raise TraceFormatError(
            "gzip file holds nothing readable", offset=0, expected="a gzip stream", found="damage"
        )
    return result, notes


def _inflating(offset: int, size: int, limit: int) -> TraceFormatError:
    """The error for a gzip stream inflating past `RATIO` times its `size`."""
    return TraceFormatError(
        f"the gzip stream of {size} bytes inflates past {limit} bytes, {RATIO} times its "
        "size (a decompression bomb?); gunzip it first to read it anyway",
        offset=offset,
    )
