"""Reads ProGuard/R8 mapping files (`mapping.txt`) into a `model.mapping.Mapping`.

The format, line by line:

* `original.Class -> obfuscated.Class:` opens a class block;
* indented member lines: fields `type name -> obf` (dropped: traces hold no fields) and methods
  `[a:b:]returns name(args)[:x[:y]] -> obf`, where `a:b` is the minified line range and `x:y`
  the original one; `name` may be qualified (`com.a.Other.run`) for a method from another class;
* R8 writes inline chains as several lines with one obfuscated name and one minified range,
  innermost frame first and the method really in the dex last;
* `# {...}` lines carry JSON metadata for the line above (class or member): `sourceFile`
  (`fileName`), `com.android.tools.r8.synthesized`, `...residualsignature` (`signature`, a
  descriptor in obfuscated types), `...outline`, `...outlineCallsite`; other comments (the
  `# compiler:` header, `...mapping` version) are skipped.

Lines that fit none of these are skipped and counted in `Mapping.notes`; a file whose first
non-comment line is not a class line is not a mapping and raises `TraceFormatError`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from traceview.model import TraceFormatError, printable
from traceview.model.mapping import MappedClass, MappedMethod, Mapping

__all__ = ["parse_mapping", "read_mapping"]

# Linear in the line's length: the original name must end in a character that is no blank, so
# each run of blanks is tried as the one before `->` once (`a` + 300,000 blanks took 46 s when
# any of them could be, a quadratic search)
_CLASS = re.compile(
    r"^([^\s#](?:[^\n]*?[^ \t\n])?)[ \t]+->[ \t]+([^\s:]+):[ \t]*\r?$", re.MULTILINE
)
_METHOD = re.compile(
    r"^(?:(\d+):(\d+):)?([^\s(]+)\s+([^\s(]+)\(([^)]*)\)(?::\d+(?::\d+)?)?\s*->\s*(\S+)\s*$"
)
# a field's name holds no `->` (no JVM name can: `>` is not allowed), so the arrow is found
# once: a name that may hold arrows made `a b->->…-> x y` quadratic (32 KB took 9 s)
_FIELD = re.compile(r"^[^\s(]+\s+(?:[^\s(-]|-(?!>))+\s*->\s*\S+\s*$")
_R8 = "com.android.tools.r8."

# One method line while its class block is read: owner, name, returns, args, obfuscated,
# residual, synthesized, outline, minified range (mutable: metadata lines update it).
_Line = list[Any]


@dataclass
class _Block:
    original: str
    obfuscated: str
    source_file: str = ""
    synthesized: bool = False
    lines: list[_Line] = field(default_factory=list)

    def close(self) -> MappedClass:
        """The class with inline chains marked (all frames but the last of a chain)."""
        methods = []
        last = len(self.lines) - 1
        for i, ln in enumerate(self.lines):
            nxt = self.lines[i + 1] if i < last else None
            chained = nxt is not None and ln[8] is not None and nxt[8] == ln[8] and nxt[4] == ln[4]
            methods.append(
                MappedMethod(ln[0], ln[1], ln[2], ln[3], ln[4], ln[5], chained, ln[6], ln[7])
            )
        return MappedClass(
            self.original, self.obfuscated, self.source_file, self.synthesized, tuple(methods)
        )


def read_mapping(path: str | os.PathLike[str], classes: Collection[str] | None = None) -> Mapping:
    """Parse the mapping file at `path` (UTF-8); `classes` as `parse_mapping`."""
    data = Path(path).read_bytes()
    try:
        return parse_mapping(data, classes)
    except TraceFormatError as err:
        raise err.with_path(str(path)) from None


def parse_mapping(data: bytes | str, classes: Collection[str] | None = None) -> Mapping:
    """Parse the text of a mapping file. With `classes` (obfuscated class names, dotted), only
    those class blocks get their members read (every class line is still read, for the
    signatures' types): a trace names a few hundred of an app's tens of thousands of classes.
    """
    raw = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
    text = raw.decode("utf-8", "surrogateescape")
    heads = list(_CLASS.finditer(text))
    _check_preamble(text, heads[0].start() if heads else len(text))
    wanted = None if classes is None else set(classes)
    out: list[MappedClass] = []
    skipped: list[int] = []
    line, counted = 1, 0  # the line number at offset `counted` (counted forward only)
    for i, m in enumerate(heads):
        block = _Block(m.group(1), m.group(2))
        if wanted is None or block.obfuscated in wanted:
            end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
            line += text.count("\n", counted, m.end())
            counted = m.end()
            _read_members(block, text[m.end() : end], line + 1, skipped)
        out.append(block.close())
    notes: tuple[str, ...] = ()
    if skipped:
        first = ", ".join(str(n) for n in skipped[:5])
        notes = (f"{len(skipped)} line(s) of the mapping were not understood (line {first}…)",)
    digest = hashlib.sha256(raw)
    if wanted is not None:
        digest.update("\0".join(sorted(wanted)).encode("utf-8", "surrogateescape"))
    return Mapping(tuple(out), digest.hexdigest(), notes)


def _check_preamble(text: str, end: int) -> None:
    """Only comments and blank lines may precede the first class line."""
    for number, line in enumerate(text[:end].splitlines(), 1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            raise TraceFormatError(
                f"not a ProGuard/R8 mapping file (line {number})",
                expected="'original.Class -> obfuscated.Class:'",
                found=f"'{printable(stripped[:60])}'",  # undecodable bytes as \xNN
            )


def _read_members(block: _Block, body: str, first_line: int, skipped: list[int]) -> None:
    """The member and metadata lines of one class block (`body` starts after its line)."""
    for number, line in enumerate(body.splitlines()[1:], first_line):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped[0] == "#":
            _metadata(block, stripped[1:].strip())
            continue
        m = _METHOD.match(stripped)
        if m is not None:
            start, end, returns, name, args, obfuscated = m.groups()
            owner = block.original
            if "." in name:
                owner, _, name = name.rpartition(".")
            if not args:
                arg_types: tuple[str, ...] = ()
            elif " " in args:
                arg_types = tuple(a.strip() for a in args.split(","))
            else:
                arg_types = tuple(args.split(","))
            span = (start, end) if start is not None else None
            block.lines.append(
                [owner, name, returns, arg_types, obfuscated, None, False, False, span]
            )
        elif not _FIELD.match(stripped) or not line[:1].isspace():
            skipped.append(number)


def _metadata(block: _Block, text: str) -> None:
    """Apply one `# {...}` comment to the class (before any member) or to the last method."""
    if not text.startswith("{"):
        return
    try:
        info = json.loads(text)
    except ValueError:
        return
    if not isinstance(info, dict):
        return
    kind = info.get("id")
    on_class = not block.lines
    if kind == "sourceFile" and on_class:
        name = info.get("fileName")
        if isinstance(name, str):
            block.source_file = name
    elif kind == _R8 + "synthesized":
        if on_class:
            block.synthesized = True
        else:
            block.lines[-1][6] = True
    elif kind == _R8 + "residualsignature" and not on_class:
        sig = info.get("signature")
        if isinstance(sig, str):
            block.lines[-1][5] = sig
    elif kind == _R8 + "outline" and not on_class:
        block.lines[-1][7] = True
