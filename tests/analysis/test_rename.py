"""MappingRename: methods found by obfuscated class, name and signature; every original shown
when several fit; the obfuscated label kept."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from traceview.analysis.rename import MappingRename, descriptor
from traceview.model import MethodTable
from traceview.readers.mapping import parse_mapping

MAPPING = """\
com.example.Foo -> a.a:
# {"id":"sourceFile","fileName":"Foo.kt"}
    1:1:void run(com.example.Bar):10:10 -> a
    2:2:void run(int):11:11 -> a
    3:3:void left():12:12 -> b
    4:4:void right():13:13 -> b
    5:5:void com.example.Util.helper():3:3 -> c
    5:5:void outer():14 -> c
    6:6:void kept(com.example.Bar[],int):1:1 -> d
    # {"id":"com.android.tools.r8.residualsignature","signature":"(I)V"}
com.example.Bar -> a.b:
    void <init>() -> <init>
"""


def table(rows: list[tuple[str, str, str]], source: str = "SourceFile") -> MethodTable:
    n = len(rows)
    return MethodTable(
        id=np.arange(n, dtype=np.uint64) * 4,
        class_name=tuple(r[0] for r in rows),
        name=tuple(r[1] for r in rows),
        signature=tuple(r[2] for r in rows),
        source_file=(source,) * n,
        line=np.full(n, -1, dtype=np.int32),
        declared=np.ones(n, dtype=bool),
    )


def renamed(rows: list[tuple[str, str, str]]) -> MethodTable:
    return MappingRename(parse_mapping(MAPPING)).methods(table(rows))


def test_overloads_resolved_by_obfuscated_signature() -> None:
    me = renamed([("a.a", "a", "(La/b;)V"), ("a.a", "a", "(I)V")])
    assert me.label(0) == "com.example.Foo.run (Lcom/example/Bar;)V"
    assert me.label(1) == "com.example.Foo.run (I)V"
    assert me.obfuscated == ("a.a.a (La/b;)V", "a.a.a (I)V")
    assert me.source_file == ("Foo.kt", "Foo.kt")


def test_several_originals_are_all_shown() -> None:
    me = renamed([("a.a", "b", "()V")])
    assert me.full_name(0) == "com.example.Foo.left | com.example.Foo.right"


def test_inlined_frames_never_match() -> None:
    me = renamed([("a.a", "c", "()V")])
    assert me.full_name(0) == "com.example.Foo.outer"


def test_residual_signature() -> None:
    me = renamed([("a.a", "d", "(I)V")])
    assert me.label(0) == "com.example.Foo.kept ([Lcom/example/Bar;I)V"


def test_unknown_methods_keep_their_names_with_types_mapped() -> None:
    me = renamed([("a.b", "zz", "(La/a;)La/b;"), ("java.lang.Thread", "run", "()V")])
    assert me.label(0) == "com.example.Bar.zz (Lcom/example/Foo;)Lcom/example/Bar;"
    assert me.label(1) == "java.lang.Thread.run ()V"
    assert me.obfuscated is not None and me.obfuscated[1] == ""


def test_slash_class_names_stay_slashed() -> None:
    me = renamed([("a/a", "a", "(I)V")])
    assert me.label(0) == "com/example/Foo.run (I)V"


def test_equal_mappings_are_equal_renamings() -> None:
    a, b = (MappingRename(parse_mapping(MAPPING)) for _ in range(2))
    assert a == b and hash(a) == hash(b)
    assert a != MappingRename(parse_mapping(MAPPING + "x.Y -> z:\n"))


def test_descriptor() -> None:
    assert descriptor(["int", "java.lang.String[][]"], "void") == "(I[[Ljava/lang/String;)V"
    assert descriptor([], "a.B", {"a.B": "c"}) == "()Lc;"


JAVA = ["int", "long", "boolean", "java.lang.String", "int[]"]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 5),  # class
            st.sampled_from(["run", "get", "apply", "<init>"]),
            st.lists(st.integers(0, len(JAVA) + 5), max_size=3).map(tuple),  # >= len: a class
        ),
        min_size=1,
        max_size=25,
        unique=True,
    )
)
def test_renaming_undoes_any_obfuscation(methods: list[tuple[int, str, tuple[int, ...]]]) -> None:
    """Classes `com.app.K{i}` become `a{i}`, each (class, name) a short name shared by its
    overloads, argument types obfuscated too: the renamed labels are the originals."""

    def java(t: int) -> str:
        return JAVA[t] if t < len(JAVA) else f"com.app.K{t - len(JAVA)}"

    lines: dict[int, list[str]] = {}
    short: dict[tuple[int, str], str] = {}
    rows = []
    for k, name, args in methods:
        obf = name if name == "<init>" else short.setdefault((k, name), f"m{len(short)}")
        types = [java(a) for a in args]
        lines.setdefault(k, []).append(f"    void {name}({','.join(types)}) -> {obf}")
        classes = {f"com.app.K{i}": f"a{i}" for i in range(6)}
        rows.append(
            (
                (f"com.app.K{k}", name, descriptor(types, "void")),
                (f"a{k}", obf, descriptor(types, "void", classes)),
            )
        )
    text = "".join(  # every class has its line, as R8 writes them
        f"com.app.K{k} -> a{k}:\n" + "".join(x + "\n" for x in lines.get(k, [])) for k in range(6)
    )
    me = MappingRename(parse_mapping(text)).methods(table([obf for _, obf in rows]))
    want = table([orig for orig, _ in rows])
    assert [me.label(i) for i in range(len(me))] == [want.label(i) for i in range(len(want))]


def test_a_signature_no_candidate_has_shows_the_name_once() -> None:
    """Two overloads of one name, a traced signature matching neither (a stale mapping):
    the name is shown once, the signature as traced with its types mapped."""
    me = renamed([("a.a", "a", "(J)V")])
    assert me.label(0) == "com.example.Foo.run (J)V"
