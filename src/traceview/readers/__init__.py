"""Readers: detect the variant from the bytes and dispatch to one module per on-disk variant.

`load(path | bytes | file)` unwraps gzip, asks `sniff.choose` which reader the first bytes
call for and hands it the bytes: `v1/regular` (key + data), `v1/split` (split pair / bare
data), `v1/streaming` (0xF1-0xF3) or `v2` (ART V2), all behind the same `sniff` + `read`
contract and ending in the one assembly step (`assemble.py`). Regular files are decoded from
disk in chunks; the other variants are read whole.
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path
from typing import BinaryIO

from traceview.model import Diagnostic, Trace, TraceFormatError
from traceview.readers.sniff import choose, is_gzip
from traceview.readers.source import Source
from traceview.readers.v1 import split

__all__ = ["load"]

_HEAD = 1 << 16


def load(source: str | os.PathLike[str] | bytes | bytearray | memoryview | BinaryIO) -> Trace:
    """Read a trace from a path, bytes or a binary file object; `Trace.source` is the path."""
    if isinstance(source, str | os.PathLike):
        path = Path(source)
        try:
            return _load_path(path)
        except TraceFormatError as err:
            raise err.with_path(str(path)) from None
    if isinstance(source, bytes | bytearray | memoryview):
        return _load_bytes(bytes(source) if isinstance(source, bytearray) else source, None)
    name = getattr(source, "name", None)
    label = name if isinstance(name, str) else None
    try:
        return _load_bytes(source.read(), label)
    except TraceFormatError as err:
        raise (err.with_path(label) if label else err) from None


def _load_path(path: Path) -> Trace:
    if not path.exists():
        pair = split.find_pair(path)
        if pair is None:
            raise FileNotFoundError(f"{path}: no such file (nor {path}.key + {path}.data)")
        return _load_split(*pair, str(path))
    with path.open("rb") as f:
        head = f.read(_HEAD)
        if not is_gzip(head):
            name, reader = choose(head)
            pair = None
            if name == "data" or (name == "regular" and path.suffix == ".key"):
                pair = split.find_pair(path)
            if pair is not None:
                return _load_split(*pair, str(path))
            if name in ("regular", "data"):
                return reader.read(Source(file=f), source=str(path))
        f.seek(0)
        return _load_bytes(f.read(), str(path))


def _load_split(key: Path, data: Path, label: str) -> Trace:
    with key.open("rb") as kf, data.open("rb") as df:
        return split.read_split(Source(file=kf), Source(file=df), source=label)


def _load_bytes(data: bytes | memoryview, source: str | None, depth: int = 0) -> Trace:
    head = bytes(data[:_HEAD])
    if is_gzip(head):
        if depth >= 2:
            raise TraceFormatError("gzip inside gzip inside gzip", offset=0)
        inner, note = _gunzip(data)
        trace = _load_bytes(inner, source, depth + 1)
        if note is not None:
            trace.diagnostics.insert(0, note)
        return trace
    _, reader = choose(head)
    return reader.read(Source(data), source=source)


def _gunzip(data: bytes | memoryview) -> tuple[bytes, Diagnostic | None]:
    """Decompress a gzip stream, salvaging what precedes damage or truncation."""
    dec = zlib.decompressobj(16 + zlib.MAX_WBITS)
    parts: list[bytes] = []
    view = memoryview(data)
    step = 1 << 20
    note = None
    try:
        for at in range(0, len(view), step):
            parts.append(dec.decompress(view[at : at + step]))
            if dec.eof:
                break
        if not dec.eof:
            note = Diagnostic("truncated-gzip", "the gzip stream is cut short; read what it held")
    except zlib.error as err:
        note = Diagnostic("corrupt-gzip", f"the gzip stream is damaged ({err}); read what preceded")
    out = b"".join(parts)
    if not out:
        raise TraceFormatError(
            "gzip file holds nothing readable", offset=0, expected="a gzip stream", found="damage"
        )
    return out, note
