"""A ProGuard/R8 mapping as plain data: which obfuscated class and method each original became.

`readers/mapping.py` parses `mapping.txt` into these values; `analysis/rename.py` turns them
into the renaming a `Query` carries. Types are Java source names (`int`, `java.lang.String[]`),
class names dotted, as the mapping file writes them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class MappedMethod:
    """One method line of a class block.

    `owner` is the class the original method was declared in: the block's class, or the
    qualifier of a qualified name (`com.a.Other.run`, a method R8 inlined or moved from another
    class). `inlined` is True for every frame of an inline chain but the last (the lines
    sharing one obfuscated name and minified line range: innermost first, the method that
    really exists in the dex last). `residual` is R8's `residualsignature` (a JVM descriptor in
    obfuscated types) when the mapping gives one; otherwise the obfuscated signature is the
    original one with every class type mapped.
    """

    owner: str
    name: str
    returns: str
    args: tuple[str, ...]
    obfuscated: str
    residual: str | None = None
    inlined: bool = False
    synthesized: bool = False
    outline: bool = False


@dataclass(frozen=True, slots=True)
class MappedClass:
    """One class block: `original -> obfuscated:`, its source file (R8's `sourceFile`
    metadata, "" when absent) and its method lines in file order (fields are dropped)."""

    original: str
    obfuscated: str
    source_file: str = ""
    synthesized: bool = False
    methods: tuple[MappedMethod, ...] = ()


@dataclass(frozen=True, slots=True)
class Mapping:
    """A whole mapping file: its class blocks in file order, `key` a digest of the bytes
    (two equal keys are the same mapping) and `notes` on lines that were skipped."""

    classes: tuple[MappedClass, ...]
    key: str
    notes: tuple[str, ...] = ()
