"""Perfetto traces decoded by `protoc --decode` against Perfetto's own perfetto_trace.proto
(tests/data/perfetto), read back into dicts: the consumer the Perfetto export is checked by.

`decode(data)` runs protoc (skipping the test when it is not installed: Debian's
`protobuf-compiler`) and fails the test when protoc rejects the bytes; `packets(data)` parses
its text output into one dict per `Trace.packet`, each field a list of values (ints, strings
as Python text, enum names, nested dicts).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

PROTO_DIR = Path(__file__).resolve().parents[1] / "data" / "perfetto"
PROTO = PROTO_DIR / "perfetto_trace.proto"
Message = dict[str, list[Any]]
_FIELD = re.compile(r"^\s*([\w\[\].]+)(?::\s*(.*)| \{)$")
_ESCAPES = {"n": 10, "r": 13, "t": 9, '"': 34, "'": 39, "\\": 92, "a": 7, "b": 8, "f": 12, "v": 11}


def protoc() -> str:
    """The protoc executable; skips the test when it is absent."""
    found = shutil.which("protoc")
    if found is None:
        pytest.skip("protoc not installed (Debian: protobuf-compiler)")
    return found


def decode(data: bytes) -> str:
    """protoc's text format of `data` as a `perfetto.protos.Trace`."""
    run = subprocess.run(
        [protoc(), "--decode=perfetto.protos.Trace", f"-I{PROTO_DIR}", str(PROTO)],
        input=data,
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr.decode(errors="replace")
    return run.stdout.decode("ascii")


def unescape(text: str) -> str:
    """A protoc string literal's body as text (C escapes and octal bytes, UTF-8)."""
    out = bytearray()
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\":
            out += c.encode()
            i += 1
            continue
        nxt = text[i + 1]
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif nxt == "x":
            m = re.match(r"[0-9a-fA-F]{1,2}", text[i + 2 :])
            assert m
            out.append(int(m.group(0), 16))
            i += 2 + len(m.group(0))
        else:
            m = re.match(r"[0-7]{1,3}", text[i + 1 :])
            assert m, text[i:]
            out.append(int(m.group(0), 8))
            i += 1 + len(m.group(0))
    return out.decode("utf-8", "surrogateescape")


def _value(text: str) -> Any:
    if text.startswith('"'):
        assert text.endswith('"'), text
        return unescape(text[1:-1])
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    return {"true": True, "false": False}.get(text, text)


def parse(text: str) -> list[Message]:
    """protoc's text format of a `Trace` as its packets."""
    root: Message = {}
    stack = [root]
    for line in text.splitlines():
        if line.strip() == "}":
            stack.pop()
            continue
        m = _FIELD.match(line)
        assert m, line
        name, value = m.group(1), m.group(2)
        if value is None:
            child: Message = {}
            stack[-1].setdefault(name, []).append(child)
            stack.append(child)
        else:
            stack[-1].setdefault(name, []).append(_value(value))
    assert len(stack) == 1, "unbalanced braces"
    return root.get("packet", [])


def packets(data: bytes) -> list[Message]:
    """The packets of a Perfetto trace as protoc decodes them."""
    return parse(decode(data))


def one(message: Message, name: str, default: Any = None) -> Any:
    """The single value of field `name` (default when absent)."""
    values = message.get(name)
    if not values:
        return default
    assert len(values) == 1, name
    return values[0]
