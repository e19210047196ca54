"""Obfuscating a trace the way R8 does, with the mapping.txt that undoes it (tests of
`--mapping`): app classes become `PREFIX.cK`, their methods `mK` (overloads share one name),
signatures use the obfuscated class names; `java.` and `dalvik.` classes are kept."""

from __future__ import annotations

import io
import re
from dataclasses import replace

from traceview.model import Trace

PRIMITIVE = {
    "V": "void",
    "Z": "boolean",
    "B": "byte",
    "C": "char",
    "S": "short",
    "I": "int",
    "J": "long",
    "F": "float",
    "D": "double",
}
KEPT = ("java.", "dalvik.")


def java_types(desc: str) -> tuple[list[str], str]:
    """`(I[La/B;)V` -> (["int", "a.B[]"], "void")."""
    found = re.findall(r"(\[*)(L[^;]+;|[VZBCSIJFD])", desc)
    types = [
        (PRIMITIVE[t] if len(t) == 1 else t[1:-1].replace("/", ".")) + "[]" * len(dims)
        for dims, t in found
    ]
    return types[:-1], types[-1]


def obfuscate(trace: Trace, prefix: str) -> tuple[Trace, str]:
    """The trace with app classes and methods renamed, and the mapping.txt that undoes it."""
    me = trace.methods
    classes = sorted({c for c in me.class_name if not c.startswith(KEPT)})
    cmap = {c: f"{prefix}.c{k}" for k, c in enumerate(classes)}

    def obf_type(t: str) -> str:
        base = t.rstrip("[]")
        return cmap.get(base, base) + t[len(base) :]

    def obf_desc(desc: str) -> str:
        return re.sub(
            r"L([^;]+);",
            lambda m: (
                "L" + cmap.get(m.group(1).replace("/", "."), m.group(1)).replace(".", "/") + ";"
            ),
            desc,
        )

    lines: dict[str, list[str]] = {c: [] for c in classes}
    names: dict[tuple[str, str], str] = {}
    new_cls, new_name, new_sig = [], [], []
    for i in range(len(me)):
        cls, name, sig = me.class_name[i], me.name[i], me.signature[i]
        new_sig.append(obf_desc(sig))
        if cls not in cmap:
            new_cls.append(cls)
            new_name.append(name)
            continue
        keep = name.startswith("<")
        obf = name if keep else names.setdefault((cls, name), f"m{len(names)}")
        args, ret = java_types(sig)
        lines[cls].append(f"    {i + 1}:{i + 1}:{ret} {name}({','.join(args)}):{i}:{i} -> {obf}")
        new_cls.append(cmap[cls])
        new_name.append(obf)
    text = "".join(
        f"{c} -> {cmap[c]}:\n" + "".join(line + "\n" for line in lines[c]) for c in classes
    )
    methods = replace(me, class_name=tuple(new_cls), name=tuple(new_name), signature=tuple(new_sig))
    return replace(trace, methods=methods), text


def obfuscated_app(seed: int, records: int = 3000) -> tuple[Trace, bytes, str]:
    """A generated two-thread trace (`seed`), its obfuscated file's bytes and the mapping.txt
    that undoes the renaming: what an app built with R8 uploads."""
    from traceview.synth import generate
    from traceview.writer import write

    trace = generate(records=records, threads=2, seed=seed)
    obf, mapping = obfuscate(trace, "q")
    out = io.BytesIO()
    write(obf, out)
    return trace, out.getvalue(), mapping
