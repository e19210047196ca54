"""Hostile ProGuard/R8 mappings (issue 18): lines a backtracking pattern takes quadratic time
over are parsed in linear work, and errors show undecodable bytes as `\\xNN`.

The work is counted, not timed: the parser's patterns are replaced by counting stand-ins
(support/regexwork.py: the same answers from `re`, each replayed in a model of its
backtracking that counts character tests). The quadratic patterns made 1,500 to 4,500 steps
per character of these 1-2 KB lines (and minutes to hours at 1 MiB); the linear ones make 9
to 14, whatever the line's length.
"""

from __future__ import annotations

import contextlib
import re

import pytest

import traceview.readers.mapping as mapping
from support.regexwork import Counting
from traceview.model import TraceFormatError
from traceview.readers.mapping import parse_mapping

LINE = 1000
STEPS_PER_CHAR = 32  # the linear patterns' 9-14 with room; quadratic ones grow with the line

# (head, repeated unit, tail): each made a line of about LINE characters
SHAPES = {
    "class line of blanks": ("a", " ", ""),
    "class line of tabs": ("a", "\t", "-> b: x"),
    "blanks around the arrow": ("a", " ", "->" + " " * 1000 + "x"),
    "field name of arrows": ("a -> b:\n  a b", "->", " x y"),
    "method line of blanks": ("a -> b:\n  a", " ", "b("),
    "arrows after a class": ("a", " -> x", " y"),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_hostile_mapping_lines_parse_in_linear_work(
    shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    head, unit, tail = SHAPES[shape]
    text = head + unit * (LINE // len(unit)) + tail
    patterns = {name: Counting(getattr(mapping, name)) for name in ("_CLASS", "_METHOD", "_FIELD")}
    for name, counting in patterns.items():
        monkeypatch.setattr(mapping, name, counting)
    with contextlib.suppress(TraceFormatError):  # not a mapping: that work is counted too
        parse_mapping(text)
    steps = sum(p.steps for p in patterns.values())
    assert steps <= STEPS_PER_CHAR * len(text), (shape, steps, len(text))


def test_the_count_sees_the_quadratic_class_pattern() -> None:
    """The class pattern before issue 18's fix, over a class line of blanks: the model counts
    work growing with the line, so the bound above is not met by accident."""
    old = Counting(re.compile(r"^([^\s#][^\n]*?)[ \t]+->[ \t]+([^\s:]+):[ \t]*\r?$", re.M))
    text = "a" + " " * (LINE // 2)
    assert list(old.finditer(text)) == []
    assert old.steps > 10 * STEPS_PER_CHAR * len(text), old.steps


def test_lines_still_read_as_before() -> None:
    m = parse_mapping(b"com.a.Foo\t ->  a.a: \r\n    int count -> a\n    void run() -> b\n")
    assert [(c.original, c.obfuscated) for c in m.classes] == [("com.a.Foo", "a.a")]
    assert [x.name for x in m.classes[0].methods] == ["run"] and not m.notes


def test_undecodable_bytes_in_an_error_are_shown_as_xNN() -> None:
    with pytest.raises(TraceFormatError) as info:
        parse_mapping(b"hello \x84 world\n")
    line = str(info.value)
    assert "'hello \\x84 world'" in line and "\\udc84" not in line
