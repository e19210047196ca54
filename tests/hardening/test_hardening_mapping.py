"""Hostile ProGuard/R8 mappings (issue 18): lines a backtracking pattern takes quadratic time
over are parsed in linear time, and errors show undecodable bytes as `\\xNN`.

No clock is read: each shape is parsed at 1 MiB in a child process that must finish within a
generous minute. The quadratic parser needed about 8 minutes for the blank line and hours
for the arrows; the linear one takes well under a second for all of them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from traceview.model import TraceFormatError
from traceview.readers.mapping import parse_mapping

SRC = Path(__file__).resolve().parents[2] / "src"
LINE = 1 << 20
TIMEOUT = 60.0

# (head, repeated unit, tail): each made a line of about LINE bytes
SHAPES = {
    "class line of blanks": ("a", " ", ""),
    "class line of tabs": ("a", "\t", "-> b: x"),
    "blanks around the arrow": ("a", " ", "->" + " " * 1000 + "x"),
    "field name of arrows": ("a -> b:\n  a b", "->", " x y"),
    "method line of blanks": ("a -> b:\n  a", " ", "b("),
    "arrows after a class": ("a", " -> x", " y"),
}

CHILD = """
import sys
from traceview.readers.mapping import parse_mapping
from traceview.model import TraceFormatError
line = int(sys.argv[1])
for head, unit, tail in eval(sys.argv[2]).values():
    text = (head + unit * (line // len(unit)) + tail).encode()
    try:
        parse_mapping(text)
    except TraceFormatError:
        pass
print("parsed", flush=True)
"""


def test_hostile_mapping_lines_parse_in_linear_time() -> None:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    cmd = [sys.executable, "-c", CHILD, str(LINE), repr(SHAPES)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"parsing {len(SHAPES)} hostile 1 MiB mapping lines took over {TIMEOUT:g} s")
    assert done.returncode == 0 and done.stdout.strip() == "parsed", done.stderr[-2000:]


def test_lines_still_read_as_before() -> None:
    m = parse_mapping(b"com.a.Foo\t ->  a.a: \r\n    int count -> a\n    void run() -> b\n")
    assert [(c.original, c.obfuscated) for c in m.classes] == [("com.a.Foo", "a.a")]
    assert [x.name for x in m.classes[0].methods] == ["run"] and not m.notes


def test_undecodable_bytes_in_an_error_are_shown_as_xNN() -> None:
    with pytest.raises(TraceFormatError) as info:
        parse_mapping(b"hello \x84 world\n")
    line = str(info.value)
    assert "'hello \\x84 world'" in line and "\\udc84" not in line
