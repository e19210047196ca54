"""A key + data file read as `load` reads it, as many times as asked, each time handing its
records to a sink chunk by chunk (`readers.v1.records.RecordDecoder`) instead of keeping them:
what a command that needs only the whole trace's profile reads a large file with
(cli/streamed.py). Each read's trace has the tables, header and diagnostics, and no records;
the key and the checks of the whole file (a fill run, a damaged file's cause) are read once.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from pathlib import Path

from traceview.model import Diagnostic, Trace, TraceFormatError
from traceview.readers.files import escape, fill_note, open_regular, too_big
from traceview.readers.keytext import KeyText
from traceview.readers.sniff import choose, is_gzip
from traceview.readers.source import Source
from traceview.readers.v1.records import Sink
from traceview.readers.v1.regular import read_data, read_key
from traceview.readers.verdict import SAMPLE, Seen, judge, look

_HEAD = 1 << 16


class Records:
    """An open key + data file (`records`), read again by each `read`."""

    def __init__(self, src: Source, path: Path, salvage: bool, notes: list[Diagnostic]) -> None:
        self.src, self.path, self.salvage, self.notes = src, path, salvage, notes
        self.seen: Seen = look(src.read(0, SAMPLE))
        self.key_diags: list[Diagnostic] = []
        self.key: KeyText = read_key(src, self.key_diags)

    def read(self, sink: Sink, clocks: Collection[str] | None = None) -> Trace:
        """Hand every record to `sink` (the time columns of `clocks`, default every clock;
        none when empty); the trace without its records."""
        try:
            trace = read_data(
                self.src,
                self.key.end,
                self.key,
                variant="regular",
                diags=list(self.key_diags),
                source=str(self.path),
                clocks=clocks,
                sink=sink,
            )
            trace.diagnostics[:0] = self.notes
            return judge(trace, self.salvage, self.seen)
        except TraceFormatError as err:
            raise (err if err.path else err.with_path(escape(self.path))) from None


@contextmanager
def records(
    path: str | os.PathLike[str], *, max_size: int, salvage: bool = False
) -> Iterator[Records | None]:
    """The key + data file at `path`, open for `Records.read`; None for a file of any other
    variant (or gzip, a split pair, a missing file): `load` reads those."""
    where = Path(path)
    if not os.path.lexists(where):
        yield None
        return
    with open_regular(where) as f:
        head = f.read(_HEAD)
        if is_gzip(head) or where.suffix == ".key" or choose(head)[0] != "regular":
            yield None
            return
        src = Source(file=f)
        at = src.clip_fill_run(until=max_size + (1 << 20))
        if src.size > max_size:
            raise too_big(src.size, max_size)
        try:
            opened = Records(src, where, salvage, [fill_note(at, "file")] if at is not None else [])
        except TraceFormatError as err:
            raise (err if err.path else err.with_path(escape(where))) from None
        yield opened
