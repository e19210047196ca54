"""Compiled JSON writing for the exporters that write one record per call or event (chrome,
speedscope): a record is a `Template` of constant byte pieces around numeric and text fields,
and a numba kernel fills a byte buffer with many records at once, chunk by chunk, on the
project's worker threads (the kernel releases the GIL), chunks written in order.

Importing this module imports numba (through `analysis.jit`, about 0.2 s), so only the formats
that import it, inside their export function, pay for it; the first call then loads the
compiled kernel from numba's cache (`__pycache__` beside this file, or numba's user-wide cache
folder when that is not writable; NUMBA_CACHE_DIR overrides both). Text never goes through
the kernel's formatting: each text (a method's name) is encoded once, already escaped, and
the kernel copies its bytes.
"""

from __future__ import annotations

import codecs
import copy
import queue
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any, Final

import numpy as np
import numpy.typing as npt

from traceview.analysis.kernels.jit import njit
from traceview.analysis.workers import default_workers, parallel_imap

U8 = npt.NDArray[np.uint8]
I64 = npt.NDArray[np.int64]

INT: Final = 0  # the value as a decimal integer
MICROS: Final = 1  # ns as µs with three decimals (exact): 1234567 -> 1234.567
TEXT: Final = 2  # the value is an index into the template's texts, copied as they are
WIDTH: Final = 25  # the most bytes a number takes: "-9223372036854775.808" is 21
CHUNK = 1 << 16  # records per chunk: ~12 MB of Chrome events, a few in flight


# Indices are unsigned throughout: numba checks every signed index for wraparound (a
# negative index counting from the end), which made the kernel 2.2x slower (1.4 vs 3.1 GB/s).
PAIRS = np.frombuffer(b"".join(b"%02d" % i for i in range(100)), dtype=np.uint8).copy()
POW10 = np.array([10**k for k in range(20)], dtype=np.uint64)  # a table: 10 % faster than *= 10


@njit
def _copy(buf: U8, pos: int, src: U8, lo: int, hi: int) -> int:
    """Copy `src[lo:hi]` to `buf[pos:]` (a byte loop: numba's slice copy is 4x slower for
    these few bytes); the position after it."""
    at = np.uint64(pos)
    for j in range(np.uint64(lo), np.uint64(hi)):
        buf[at] = src[j]
        at += np.uint64(1)
    return pos + (hi - lo)


@njit
def _digits(buf: U8, pos: int, u: np.uint64) -> int:
    """Write the unsigned `u` in decimal at `pos`, two digits per division; the position
    after it."""
    n = 1
    while n < 20 and u >= POW10[n]:  # 20 digits: 2**64 - 1
        n += 1
    end = pos + n
    i = np.uint64(end)
    hundred = np.uint64(100)
    while u >= hundred:
        q = u // hundred
        d = (u - q * hundred) * np.uint64(2)
        i -= np.uint64(2)
        buf[i] = PAIRS[d]
        buf[i + np.uint64(1)] = PAIRS[d + np.uint64(1)]
        u = q
    if u >= np.uint64(10):
        d = u * np.uint64(2)
        buf[i - np.uint64(2)] = PAIRS[d]
        buf[i - np.uint64(1)] = PAIRS[d + np.uint64(1)]
    else:
        buf[i - np.uint64(1)] = np.uint8(48 + u)
    return end


@njit
def _magnitude(buf: U8, pos: int, v: np.int64) -> tuple[int, np.uint64]:
    """Write `-` when `v` is negative; the position after it and |v| (exact for -2**63)."""
    if v < 0:
        buf[np.uint64(pos)] = 45
        return pos + 1, np.uint64(-(v + 1)) + np.uint64(1)
    return pos, np.uint64(v)


@njit
def _fill(
    buf: U8,
    pieces: U8,
    piece_at: I64,
    kinds: I64,
    cols: I64,
    texts: U8,
    text_at: I64,
) -> int:
    """Write one record per column of `cols` (fields x records) into `buf`: piece 0, field 0,
    piece 1, ..., the last piece. The number of bytes written."""
    k = len(kinds)
    thousand = np.uint64(1000)
    hundred = np.uint64(100)
    pos = 0
    for r in range(cols.shape[1]):
        for f in range(k + 1):
            pos = _copy(buf, pos, pieces, piece_at[f], piece_at[f + 1])
            if f == k:
                break
            v = cols[f, r]
            kind = kinds[f]
            if kind == 2:  # TEXT
                pos = _copy(buf, pos, texts, text_at[v], text_at[v + 1])
            elif kind == 1:  # MICROS: whole µs, '.', three digits
                pos, u = _magnitude(buf, pos, v)
                pos = _digits(buf, pos, u // thousand)
                frac = u % thousand
                d = (frac % hundred) * np.uint64(2)
                at = np.uint64(pos)
                buf[at] = 46
                buf[at + np.uint64(1)] = np.uint8(48 + frac // hundred)
                buf[at + np.uint64(2)] = PAIRS[d]
                buf[at + np.uint64(3)] = PAIRS[d + np.uint64(1)]
                pos += 4
            else:  # INT
                pos, u = _magnitude(buf, pos, v)
                pos = _digits(buf, pos, u)
    return pos


def _joined(parts: Iterable[bytes]) -> tuple[U8, I64]:
    """Byte strings as one buffer and the offsets of each (n + 1 of them)."""
    parts = list(parts)
    at = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum([len(p) for p in parts], out=at[1:])
    return np.frombuffer(b"".join(parts), dtype=np.uint8).copy(), at


class Template:
    """A record: `pieces[0] field[0] pieces[1] ... field[k-1] pieces[k]`, each field of a kind
    (`INT`, `MICROS`, `TEXT`); `TEXT` fields index `texts` (bytes, written as they are)."""

    def __init__(self, pieces: list[bytes], kinds: list[int], texts: Iterable[bytes] = ()):
        if len(pieces) != len(kinds) + 1:
            raise ValueError("a template has one piece more than it has fields")
        self.pieces, self.piece_at = _joined(pieces)
        self.kinds = np.asarray(kinds, dtype=np.int64)
        self.texts, self.text_at = _joined(texts)
        self.text_len = np.diff(self.text_at)
        numbers = sum(1 for k in kinds if k != TEXT)
        self.fixed = len(self.pieces) + WIDTH * numbers  # the most bytes a record takes, but texts

    def with_pieces(self, pieces: list[bytes]) -> Template:
        """The same fields and texts between other pieces (e.g. another thread's id)."""
        if len(pieces) != len(self.kinds) + 1:
            raise ValueError("a template has one piece more than it has fields")
        other = copy.copy(self)
        other.pieces, other.piece_at = _joined(pieces)
        other.fixed = self.fixed - len(self.pieces) + len(other.pieces)
        return other

    def size(self, cols: I64) -> int:
        """The most bytes the records of `cols` take (checking their text indices)."""
        if cols.ndim != 2 or cols.shape[0] != len(self.kinds):
            raise ValueError(f"expected {len(self.kinds)} rows of fields")
        size = self.fixed * int(cols.shape[1])
        for f in np.flatnonzero(self.kinds == TEXT):
            index = cols[f]
            if len(index) and (index.min() < 0 or index.max() >= len(self.text_len)):
                raise IndexError("a text field indexes past the template's texts")
            size += int(self.text_len[index].sum())
        return size

    def fill(self, buf: U8, cols: I64) -> int:
        """Write the records of `cols` (one row per field, one column per record) into `buf`
        (at least `size(cols)` bytes); the number of bytes written."""
        cols = np.ascontiguousarray(cols, dtype=np.int64)
        if len(buf) < self.size(cols):
            raise ValueError("the buffer is too small for these records")
        return self._into(buf, cols)

    def _into(self, buf: U8, cols: I64) -> int:
        return _fill(buf, self.pieces, self.piece_at, self.kinds, cols, self.texts, self.text_at)

    def format(self, cols: I64) -> bytes:
        """The records of `cols` as UTF-8 bytes."""
        buf = np.empty(self.size(np.asarray(cols)), dtype=np.uint8)
        return buf[: self.fill(buf, cols)].tobytes()


class Buffers:
    """Byte buffers for chunks, each used again once written: one set per export, since fresh
    pages cost a page fault per 4 KiB (the first Chrome export of a process took 2x as long in
    the kernel, 0.33 vs 0.16 s at 10M records). Thread-safe."""

    def __init__(self) -> None:
        self._free: queue.SimpleQueue[U8] = queue.SimpleQueue()

    def take(self, size: int) -> U8:
        """A buffer of at least `size` bytes (a spare one when there is one that large)."""
        try:
            buf = self._free.get_nowait()
        except queue.Empty:
            buf = np.empty(0, dtype=np.uint8)
        return buf if len(buf) >= size else np.empty(size + size // 4, dtype=np.uint8)

    def give(self, buf: U8) -> None:
        """Return a buffer that has been written."""
        self._free.put(buf)


def formatted(
    template: Template,
    columns: Callable[[int, int], I64],
    n: int,
    workers: int | None = None,
    chunk: int | None = None,
    buffers: Buffers | None = None,
) -> Iterator[memoryview]:
    """The `n` records of `template` in chunks of `chunk` records (default `CHUNK`), in order:
    `columns(lo, hi)` gives the fields of records `lo:hi`. Chunks are built on up to
    `workers` threads (default: the project's setting, `TRACEVIEW_WORKERS`, else both of two
    cores), a few at a time (memory: a few chunks, whatever `n`), into `buffers`. Each chunk
    is valid until the next one is asked for."""
    if workers is None:
        workers = default_workers(unset=2)
    pool = Buffers() if buffers is None else buffers
    step = CHUNK if chunk is None else max(1, chunk)
    spans = [(lo, min(lo + step, n)) for lo in range(0, n, step)]

    def build(span: tuple[int, int]) -> tuple[U8, int]:
        cols = np.ascontiguousarray(columns(*span), dtype=np.int64)
        buf = pool.take(template.size(cols))
        return buf, template._into(buf, cols)

    for buf, used in parallel_imap(build, spans, workers):
        yield buf.data[:used]
        pool.give(buf)


def byte_writer(out: IO[Any]) -> Callable[[memoryview], object]:
    """A function writing UTF-8 bytes to the text stream `out`: straight into its binary
    buffer when it encodes UTF-8 (its pending text flushed first), else decoded to text."""
    raw = getattr(out, "buffer", None)
    encoding = getattr(out, "encoding", None)
    if raw is not None and encoding and codecs.lookup(encoding).name == "utf-8":
        out.flush()
        write: Callable[[memoryview], object] = raw.write
        return write
    return lambda data: out.write(str(data, "utf-8"))


__all__ = ["INT", "MICROS", "TEXT", "Buffers", "Template", "byte_writer", "formatted"]
