"""Hostile inputs for the hardening tests, made at run time (no big files are committed).

Each builder returns bytes, or writes a (possibly sparse) file and returns its path. They use
`readers_bytes` for V1 bytes and the writer/synth for realistic traces, so nothing here
depends on the readers under test.
"""

from __future__ import annotations

import gzip
import io
import os
import struct
import zlib
from pathlib import Path
from typing import Unpack

import traceview.writer
from support import readers_bytes as rb
from support.writer_out import WriteOptions
from traceview.model import Variant
from traceview.synth import generate

ROWS = [(1, 0x0, 0, 10, 100), (1, 0x4, 0, 12, 110), (1, 0x4, 1, 20, 150), (1, 0x0, 1, 30, 200)]
SUPER_TWO = "\u00b2"  # '²': str.isdigit() says True, int() refuses it
HUGE = "9" * 5000  # past Python's int-conversion digit limit (4300)


def key_with(section: str, line: str, *, version: str = "3", option: str | None = None) -> bytes:
    """A regular V1 file whose key has `line` in `section` (threads/methods/version)."""
    threads = ["1\tmain"]
    methods = ["0\tcom.a.Main\trun\t()V\tMain.java", "0x4\tcom.a.Main\twork\t(I)V\tMain.java"]
    options = ["clock=dual", "vm=art"]
    if option is not None:
        options.append(option)
    if section == "threads":
        threads.append(line)
    elif section == "methods":
        methods.append(line)
    text = "\n".join(
        ["*version", version, *options, "*threads", *threads, "*methods", *methods, "*end", ""]
    )
    return text.encode("utf-8") + rb.header(3) + rb.records(ROWS)


def number_cases() -> dict[str, bytes]:
    """Key-section numbers that `isdigit`/`int` mishandle or that overflow int64/uint64."""
    cases = {
        "version-superscript": key_with("", "", version=SUPER_TWO),
        "version-huge": key_with("", "", version=HUGE),
        "thread-superscript": key_with("threads", f"{SUPER_TWO}\tbad"),
        "thread-huge": key_with("threads", f"{HUGE}\tbad"),
        "thread-2to64": key_with("threads", f"{2**64}\tbad"),
        "method-2to64": key_with("methods", f"{2**64:#x}\tcom.a.B\tm\t()V\tB.java"),
        "method-hex-huge": key_with("methods", "0x" + "f" * 5000 + "\tcom.a.B\tm\t()V\tB.java"),
        "line-superscript": key_with(
            "methods", f"0x8\tcom.a.B\tm\t()V\tB.java\t{SUPER_TWO}", version="3"
        ),
        "line-huge": key_with("methods", f"0x8\tcom/a/B\tm\t()V\tB.java\t{HUGE}"),
        "line-three-field": key_with("methods", f"0x8\tcom/a/B\tB.java\t{HUGE}"),
        "calls-superscript": key_with("", "", option=f"num-method-calls={SUPER_TWO}"),
        "calls-huge": key_with("", "", option=f"num-method-calls={HUGE}"),
        "elapsed-huge": key_with("", "", option=f"elapsed-time-usec={HUGE}"),
        "elapsed-2to64": key_with("", "", option=f"elapsed-time-usec={2**64}"),
        "pid-huge": key_with("", "", option=f"pid={2**70}"),
    }
    return cases


def many_declared(threads: int, methods: int) -> bytes:
    """A key declaring `threads` threads and `methods` methods, and four records."""
    lines = ["*version", "3", "clock=dual", "vm=art", "*threads"]
    lines += [f"{t}\tthread-{t}" for t in range(1, threads + 1)]
    lines.append("*methods")
    lines += [f"{4 * m:#x}\tc{m}\tm\t()V\tF.java" for m in range(methods)]
    lines += ["*end", ""]
    return "\n".join(lines).encode() + rb.header(3) + rb.records(ROWS)


def gzip_of_zeros(size: int) -> bytes:
    """A gzip stream of `size` zero bytes (about size / 1000 bytes long)."""
    comp = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(1 << 20)
    parts = [comp.compress(block) for _ in range(size >> 20)]
    parts.append(comp.flush())
    return b"".join(parts)


def gzip_of(data: bytes) -> bytes:
    """`data` gzipped (mtime 0: deterministic)."""
    return gzip.compress(data, mtime=0)


def written(
    variant: Variant, records: int = 4000, seed: int = 3, **kw: Unpack[WriteOptions]
) -> bytes:
    """A generated trace written as `variant`."""
    trace = generate(records=records, threads=4, seed=seed)
    buf = io.BytesIO()
    traceview.writer.write(trace, buf, variant=variant, **kw)
    return buf.getvalue()


def sparse_after(path: Path, head: bytes, total: int) -> Path:
    """Write `head`, then zeros up to `total` bytes as a hole (no disk used)."""
    with path.open("wb") as f:
        f.write(head)
        f.truncate(total)
    return path


def v2_header(version: int = 0xF5) -> bytes:
    """A bare 32-byte V2 header."""
    return (b"SLOW" + struct.pack("<HQ", version, 10**12)).ljust(32, b"\0")


def text_converted(data: bytes, *, crlf: bool = False) -> bytes:
    """What a text-mode transfer does to binary bytes: invalid UTF-8 becomes U+FFFD
    (`EF BF BD`), and optionally every LF becomes CR LF."""
    out = data.decode("utf-8", errors="replace").encode("utf-8")
    return out.replace(b"\n", b"\r\n") if crlf else out


def hostile_files(folder: Path) -> dict[str, tuple[Path | str, bytes | None]]:
    """Every hostile input of issue 8 made in `folder`: name -> (path or "-", stdin bytes)."""
    cases: dict[str, tuple[Path | str, bytes | None]] = {}

    def put(name: str, data: bytes) -> None:
        path = folder / f"{name}.trace"
        path.write_bytes(data)
        cases[name] = (path, None)

    numbers = number_cases()
    for name in ("version-superscript", "thread-huge", "method-2to64", "line-huge"):
        put(name, numbers[name])
    put("options-huge", key_with("", "", option=f"elapsed-time-usec={HUGE}"))
    put("declared-5k-x-5k", many_declared(5000, 5000))
    put("declared-20k-x-20k", many_declared(20000, 20000))
    # 50k, not the 200k of the report: the same per-thread cost in a quarter of the time
    put("declared-50k-threads", many_declared(50_000, 4))
    put("gzip-bomb", gzip_of_zeros(512 << 20))
    put("gzip-trace-then-zeros", gzip_of(written("v2") + bytes(64 << 20)))
    for variant in ("v2", "streaming", "regular"):
        path = folder / f"{variant}-then-2g-zeros.trace"
        sparse_after(path, written(variant), 2 << 30)
        cases[f"{variant}-then-2g-zeros"] = (path, None)
    path = sparse_after(folder / "v2-header-zeros.trace", v2_header(), 2 << 30)
    cases["v2-header-then-2g-zeros"] = (path, None)
    put("v2-header-then-ff", v2_header() + b"\xff" * (8 << 20))
    put("text-converted", text_converted(written("regular", records=20000)))
    put("text-converted-v2", text_converted(written("v2", records=20000)))
    put("global-clock", rb.regular([(1, 0, 0, 5), (1, 0, 1, 9)], version=2, clock="global"))
    put("truncated-header", b"SLOW\x03")
    put("empty", b"")
    if hasattr(os, "mkfifo"):
        fifo = folder / "fifo.trace"
        os.mkfifo(fifo)
        cases["fifo-without-writer"] = (fifo, None)
    cases["directory"] = (folder, None)
    odd = folder / "new\nline\x1b[2J.trace"
    odd.write_bytes(b"junk")
    cases["name-with-newline"] = (odd, None)
    cases["stdin"] = ("-", written("streaming"))
    cases["stdin-zeros"] = ("-", bytes(4 << 20))
    return cases
