"""Readers for the two-file era: a `name.key` + `name.data` pair, or a bare `SLOW` data file.

The pair is found from either file or the base name (the only place a file name matters: the
bytes of a `.data` file cannot name their key). A data file with no key becomes the
"data-only" variant: the records are all there, threads are unnamed and methods read `(0x…)`.
"""

from __future__ import annotations

import struct
from collections.abc import Collection
from pathlib import Path

from traceview.model import Diagnostic, Trace
from traceview.readers.source import Source
from traceview.readers.v1.records import Sink
from traceview.readers.v1.regular import read_data, read_key


def find_pair(path: Path) -> tuple[Path, Path] | None:
    """(key, data) paths when `path` is one file of a pair or their common base name."""
    candidates = []
    if path.suffix in (".key", ".data"):
        base = path.with_suffix("")
        candidates.append((base.with_suffix(".key"), base.with_suffix(".data")))
    candidates.append((Path(f"{path}.key"), Path(f"{path}.data")))
    for key, data in candidates:
        if key.is_file() and data.is_file() and _starts(key, b"*version"):
            return key, data
    return None


def _starts(path: Path, magic: bytes) -> bool:
    with path.open("rb") as f:
        return f.read(len(magic)) == magic


def read_split(
    key_src: Source,
    data_src: Source,
    *,
    source: str | None = None,
    clocks: Collection[str] | None = None,
    sink: Sink | None = None,
) -> Trace:
    """Read a key file and its data file as one trace (variant "split"), keeping the time
    columns of `clocks` (default every clock), or handing the records to `sink`."""
    diags: list[Diagnostic] = []
    key = read_key(key_src, diags)
    extra = key_src.read(key.end, 16)
    if extra.strip():
        diags.append(
            Diagnostic(
                "trailing-bytes",
                f"{key_src.size - key.end} byte(s) after *end in the key file ignored",
                offset=key.end,
                count=key_src.size - key.end,
            )
        )
    return read_data(
        data_src, 0, key, variant="split", diags=diags, source=source, clocks=clocks, sink=sink
    )


def sniff(head: bytes) -> bool:
    """A bare data section: `SLOW` with version 1, 2 or 3."""
    return (
        head[:4] == b"SLOW" and len(head) >= 6 and struct.unpack_from("<H", head, 4)[0] in (1, 2, 3)
    )


def read(src: Source, *, source: str | None = None, clocks: Collection[str] | None = None) -> Trace:
    """Read a bare `SLOW` v1-3 data section (variant "data-only"); `load` finds the pair."""
    return read_data_only(src, source=source, clocks=clocks)


def read_data_only(
    src: Source, *, source: str | None = None, clocks: Collection[str] | None = None
) -> Trace:
    """Read a bare `SLOW` v1-3 data section (variant "data-only"), keeping the time columns
    of `clocks` (default every clock)."""
    return read_data(src, 0, None, variant="data-only", diags=[], source=source, clocks=clocks)
