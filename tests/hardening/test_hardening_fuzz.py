"""A bounded, deterministic mutation fuzz of the corpus (and of generated V2/streaming traces,
which the corpus lacks): truncations, bit flips, overwritten runs and extreme header fields.
Every mutant loads in-process to a trace that passes `validate()`, or raises a TraceError."""

from __future__ import annotations

import gzip
import random
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

import traceview
from support import hostile
from support.corpus import corpus_files
from support.writer_out import WriteOptions
from traceview.model import TraceError, Variant

PREFIX = 128 << 10  # mutate at most the first 128 KiB of a file (key + many records)
SEED = 20261123


def bases() -> list[tuple[str, bytes]]:
    """(name, bytes) of every corpus trace (gzip opened) and of generated variants."""
    out = []
    for path in corpus_files():
        raw = path.read_bytes()
        if raw[:2] == b"\x1f\x8b":
            out.append((f"{path.name}(gz)", raw))  # the gzip stream itself, mutated
            raw = gzip.decompress(raw)
        out.append((f"{path.parent.name}/{path.name}", raw[:PREFIX]))
    generated: tuple[tuple[Variant, WriteOptions], ...] = (
        ("v2", {}),
        ("v2-streaming", {"generation": "alpha"}),
        ("v2-streaming", {"generation": "gamma"}),
        ("streaming", {}),
        ("streaming-nosummary", {}),
        ("data-only", {}),
    )
    for variant, kw in generated:
        name = f"generated-{variant}-{kw.get('generation', 'beta')}"
        out.append((name, hostile.written(variant, records=3000, seed=11, **kw)[:PREFIX]))
    return out


def mutants(data: bytes, rng: random.Random) -> Iterator[tuple[str, bytes]]:
    """Deterministic mutants of `data`, each with a description to reproduce it."""
    n = len(data)
    if n == 0:
        return
    for _ in range(6):
        cut = rng.randrange(n)
        yield f"truncate at {cut}", data[:cut]
    for _ in range(6):
        buf = bytearray(data)
        flips = [rng.randrange(n * 8) for _ in range(rng.randint(1, 16))]
        for bit in flips:
            buf[bit >> 3] ^= 1 << (bit & 7)
        yield f"flip bits {flips}", bytes(buf)
    for fill in (b"\x00", b"\xff", None):
        buf = bytearray(data)
        at, size = rng.randrange(n), rng.randint(1, 4096)
        run = bytes(rng.randrange(256) for _ in range(size)) if fill is None else fill * size
        buf[at : at + size] = run[: max(0, n - at)]
        yield f"overwrite {size} bytes at {at} with {fill!r}", bytes(buf)
    slow = data.find(b"SLOW")
    if slow >= 0 and slow + 32 <= n:
        for field, fmt, values in (
            (4, "<H", (0, 3, 0xF3, 5, 0xFFFF)),
            (6, "<H", (0, 1, 17, 0xFFFF)),
            (6, "<Q", (0, 2**63, 2**64 - 1)),
            (16, "<H", (0, 1, 9, 0xFFFF)),
            (14, "<Q", (2**64 - 1,)),
            (22, "<Q", (1, 2**64 - 1)),
        ):
            for value in values:
                buf = bytearray(data)
                struct.pack_into(fmt, buf, slow + field, value)
                yield f"header +{field} {fmt} = {value}", bytes(buf)
    if data.startswith(b"*version\n"):
        end = data.find(b"\n", 9)
        for version in (b"0", b"99999999999999999999999", b"-1", b"\xc2\xb2"):
            yield f"key version {version!r}", b"*version\n" + version + data[end:]


BASES = bases()


@pytest.mark.parametrize("index", range(len(BASES)), ids=[name for name, _ in BASES])
def test_mutants_load_or_raise_trace_error(index: int) -> None:
    name, data = BASES[index]
    rng = random.Random(f"{SEED}:{name}")
    for what, mutant in mutants(data, rng):
        try:
            trace = traceview.load(mutant)
        except TraceError as err:
            assert "\n" not in str(err), (name, what)
            continue
        except Exception as err:  # pragma: no cover - the failure names the mutant
            raise AssertionError(f"{name}: {what}: {type(err).__name__}: {err}") from err
        try:
            trace.validate()
        except AssertionError as err:
            raise AssertionError(f"{name}: {what}: {err}") from err


def test_bases_found() -> None:
    assert len(BASES) >= 6
    assert all(isinstance(data, bytes) for _, data in BASES)
    assert not any(Path(name).suffix == ".md" for name, _ in BASES)
