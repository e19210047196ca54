"""Deobfuscation: the `Rename` a `Query` carries, built from a parsed ProGuard/R8 mapping.

`MappingRename(mapping).methods(table)` returns the method table with original class and
method names. A method is found by its obfuscated class, name and signature; the signature of
each candidate is its original one with every class type mapped to its obfuscated name (or
R8's residual signature when the mapping gives one). Inlined frames never match (they are not
methods of the dex). When several originals fit, all are shown (`Orig.foo | Orig.bar`), never
one guessed; the name as the file wrote it stays in `MethodTable.obfuscated`.

The mapping arrives as plain data (`model.mapping`): analysis never reads files.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property

from traceview.model import MethodTable
from traceview.model.mapping import MappedClass, MappedMethod, Mapping

__all__ = ["MappingRename", "descriptor"]

_PRIMITIVE = {
    "void": "V",
    "boolean": "Z",
    "byte": "B",
    "char": "C",
    "short": "S",
    "int": "I",
    "long": "J",
    "float": "F",
    "double": "D",
}
_CLASS_REF = re.compile(r"L([^;]+);")


def type_descriptor(java: str, classes: dict[str, str] | None = None) -> str:
    """`java.lang.String[]` -> `[Ljava/lang/String;`; class names mapped through `classes`."""
    dims = 0
    while java.endswith("[]"):
        java, dims = java[:-2], dims + 1
    prim = _PRIMITIVE.get(java)
    if prim is None:
        name = classes.get(java, java) if classes else java
        prim = "L" + name.replace(".", "/") + ";"
    return "[" * dims + prim


def descriptor(args: Iterable[str], returns: str, classes: dict[str, str] | None = None) -> str:
    """The JVM method descriptor of Java-typed `args` and `returns`."""
    inner = "".join(type_descriptor(a, classes) for a in args)
    return f"({inner}){type_descriptor(returns, classes)}"


@dataclass(frozen=True)
class MappingRename:
    """A `Rename` from a mapping; equal when built from the same mapping bytes."""

    mapping: Mapping = field(compare=False, repr=False)
    key: str = ""

    def __post_init__(self) -> None:
        if not self.key:
            object.__setattr__(self, "key", self.mapping.key)

    @cached_property
    def _by_obfuscated(self) -> dict[str, MappedClass]:
        return {c.obfuscated: c for c in self.mapping.classes}

    @cached_property
    def _to_obfuscated(self) -> dict[str, str]:
        return {c.original: c.obfuscated for c in self.mapping.classes}

    @cached_property
    def _to_original(self) -> dict[str, str]:
        return {c.obfuscated: c.original for c in self.mapping.classes}

    def class_name(self, name: str) -> str:
        """The original name of a class (dotted or slash form kept), or `name` itself."""
        slash = "/" in name and "." not in name
        dotted = name.replace("/", ".") if slash else name
        found = self._to_original.get(dotted)
        if found is None:
            return name
        return found.replace(".", "/") if slash else found

    def signature(self, sig: str) -> str:
        """A JVM descriptor with every obfuscated class type mapped to its original."""

        def one(m: re.Match[str]) -> str:
            dotted = m.group(1).replace("/", ".")
            return "L" + self._to_original.get(dotted, dotted).replace(".", "/") + ";"

        return _CLASS_REF.sub(one, sig)

    def candidates(self, cls: str, name: str, sig: str) -> list[MappedMethod]:
        """The original methods the obfuscated `cls.name sig` may be (empty if unknown)."""
        mapped = self._by_obfuscated.get(cls.replace("/", "."))
        if mapped is None:
            return []
        named = [m for m in mapped.methods if m.obfuscated == name and not m.inlined]
        if sig:
            exact = [m for m in named if self._residual(m) == sig]
            if exact:
                named = exact
        unique: dict[tuple[str, str, str], MappedMethod] = {}
        for m in named:
            unique.setdefault((m.owner, m.name, descriptor(m.args, m.returns)), m)
        return list(unique.values())

    def _residual(self, m: MappedMethod) -> str:
        return m.residual or descriptor(m.args, m.returns, self._to_obfuscated)

    def methods(self, methods: MethodTable, /) -> MethodTable:
        """The table with original names; `obfuscated` holds the labels that changed."""
        classes, names, sigs, files, obf = [], [], [], [], []
        by_class = {c.original: c for c in self.mapping.classes}
        for row in range(len(methods)):
            cls, name, sig = methods.class_name[row], methods.name[row], methods.signature[row]
            source = methods.source_file[row]
            new_cls, new_name, new_sig = self.class_name(cls), name, self.signature(sig)
            found = self.candidates(cls, name, sig) if methods.declared[row] else []
            if found:
                original = new_cls.replace("/", ".")
                # overloads the signature could not tell apart share a name: show it once
                shown = list(dict.fromkeys((m.owner, m.name) for m in found))
                new_name = " | ".join(
                    n if (i == 0 and owner == original) else f"{owner}.{n}"
                    for i, (owner, n) in enumerate(shown)
                )
                if len(shown) == 1 and shown[0][0] != original:
                    new_cls, new_name = _in_form(shown[0][0], cls), shown[0][1]
                if len({descriptor(m.args, m.returns) for m in found}) == 1:
                    new_sig = descriptor(found[0].args, found[0].returns)
            mapped = by_class.get(new_cls.replace("/", "."))
            if mapped is not None and mapped.source_file and source in ("", "SourceFile"):
                source = mapped.source_file
            changed = (new_cls, new_name, new_sig) != (cls, name, sig)
            classes.append(new_cls)
            names.append(new_name)
            sigs.append(new_sig)
            files.append(source)
            obf.append(methods.label(row) if changed else "")
        return replace(
            methods,
            class_name=tuple(classes),
            name=tuple(names),
            signature=tuple(sigs),
            source_file=tuple(files),
            obfuscated=tuple(obf),
        )


def _in_form(dotted: str, like: str) -> str:
    """`dotted` in the slash form when `like` (a name from the trace) uses it."""
    return dotted.replace(".", "/") if "/" in like and "." not in like else dotted
