"""ProGuard/R8 mapping files: classes, fields dropped, methods with line ranges, R8 inline
chains and its JSON metadata."""

from __future__ import annotations

from pathlib import Path

import pytest

from traceview.model import TraceFormatError
from traceview.readers.mapping import parse_mapping, read_mapping

MAPPING = """\
# compiler: R8
# compiler_version: 8.3.37
# {"id":"com.android.tools.r8.mapping","version":"2.2"}
com.example.Foo -> a.a:
# {"id":"sourceFile","fileName":"Foo.kt"}
    int count -> a
    java.lang.String name -> b
    1:3:void bar(int,java.lang.String):20:22 -> b
    4:4:int com.example.Util.inlined(long[]):30:30 -> c
    4:4:void baz():40 -> c
    void plain() -> d
    # {"id":"com.android.tools.r8.synthesized"}
    5:5:void lambda(a.a):1:1 -> e
    # {"id":"com.android.tools.r8.residualsignature","signature":"(La/a;)V"}
com.example.Foo$$ExternalSynthetic0 -> a.b:
# {"id":"com.android.tools.r8.synthesized"}
    1:2:int outline(int):0:1 -> a
    # {"id":"com.android.tools.r8.outline"}
    3:3:void call():7:7 -> b
    # {"id":"com.android.tools.r8.outlineCallsite","positions":{"1":8},"outline":"La/b;a(I)I"}
"""


def test_classes_and_fields() -> None:
    m = parse_mapping(MAPPING)
    assert [(c.original, c.obfuscated) for c in m.classes] == [
        ("com.example.Foo", "a.a"),
        ("com.example.Foo$$ExternalSynthetic0", "a.b"),
    ]
    foo = m.classes[0]
    assert foo.source_file == "Foo.kt"
    assert [x.name for x in foo.methods] == ["bar", "inlined", "baz", "plain", "lambda"]
    assert foo.methods[0].args == ("int", "java.lang.String")
    assert foo.methods[0].returns == "void"
    assert m.notes == ()


def test_inline_chain_and_qualified_owner() -> None:
    foo = parse_mapping(MAPPING).classes[0]
    inlined, outer = foo.methods[1], foo.methods[2]
    assert inlined.inlined and inlined.owner == "com.example.Util" and inlined.args == ("long[]",)
    assert not outer.inlined and outer.owner == "com.example.Foo" and outer.obfuscated == "c"
    assert not foo.methods[0].inlined and not foo.methods[3].inlined


def test_metadata() -> None:
    m = parse_mapping(MAPPING)
    foo, synth = m.classes
    assert foo.methods[3].synthesized and not foo.methods[0].synthesized
    assert foo.methods[4].residual == "(La/a;)V"
    assert synth.synthesized and synth.methods[0].outline
    assert not synth.methods[1].outline


def test_key_is_a_digest_of_the_bytes(tmp_path: Path) -> None:
    path = tmp_path / "mapping.txt"
    path.write_text(MAPPING)
    assert read_mapping(path).key == parse_mapping(MAPPING).key
    assert parse_mapping(MAPPING + "x -> y:\n").key != parse_mapping(MAPPING).key


def test_not_a_mapping(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("hello world\n")
    with pytest.raises(TraceFormatError, match=r"notes.txt: not a ProGuard/R8 mapping file"):
        read_mapping(path)


def test_lines_not_understood_are_counted() -> None:
    m = parse_mapping("a.B -> c:\n    ???\n    void f() -> g\n")
    assert [x.name for x in m.classes[0].methods] == ["f"]
    assert m.notes and "1 line(s)" in m.notes[0] and "line 2" in m.notes[0]


def test_only_the_classes_asked_for_get_members() -> None:
    full = parse_mapping(MAPPING)
    some = parse_mapping(MAPPING, classes={"a.b"})
    assert [c.obfuscated for c in some.classes] == ["a.a", "a.b"]  # every class line
    assert some.classes[0].methods == () and some.classes[1] == full.classes[1]
    assert some.key != full.key
