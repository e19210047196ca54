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
from dataclasses import dataclass, field, replace
from pathlib import Path

from traceview.model import TraceFormatError
from traceview.model.mapping import MappedClass, MappedMethod, Mapping

__all__ = ["parse_mapping", "read_mapping"]

_CLASS = re.compile(r"^(\S+)\s+->\s+(\S+):\s*$")
_METHOD = re.compile(
    r"^(?:(\d+):(\d+):)?([^\s(]+)\s+([^\s(]+)\(([^)]*)\)(?::\d+(?::\d+)?)?\s*->\s*(\S+)\s*$"
)
_FIELD = re.compile(r"^[^\s(]+\s+[^\s(]+\s*->\s*\S+\s*$")
_R8 = "com.android.tools.r8."


@dataclass
class _Line:
    method: MappedMethod
    range: tuple[int, int] | None


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
        for i, line in enumerate(self.lines):
            nxt = self.lines[i + 1] if i + 1 < len(self.lines) else None
            chained = (
                nxt is not None
                and line.range is not None
                and nxt.range == line.range
                and nxt.method.obfuscated == line.method.obfuscated
            )
            methods.append(replace(line.method, inlined=True) if chained else line.method)
        return MappedClass(
            self.original, self.obfuscated, self.source_file, self.synthesized, tuple(methods)
        )


def read_mapping(path: str | os.PathLike[str]) -> Mapping:
    """Parse the mapping file at `path` (UTF-8)."""
    data = Path(path).read_bytes()
    try:
        return parse_mapping(data)
    except TraceFormatError as err:
        raise err.with_path(str(path)) from None


def parse_mapping(data: bytes | str) -> Mapping:
    """Parse the text of a mapping file."""
    raw = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
    text = raw.decode("utf-8", "surrogateescape")
    classes: list[MappedClass] = []
    block: _Block | None = None
    skipped: list[int] = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            if block is not None:
                _metadata(block, stripped[1:].strip())
            continue
        if not line[0].isspace():
            m = _CLASS.match(stripped)
            if m is None:
                if block is None and not classes:
                    raise TraceFormatError(
                        f"not a ProGuard/R8 mapping file (line {number})",
                        expected="'original.Class -> obfuscated.Class:'",
                        found=repr(stripped[:60]),
                    )
                skipped.append(number)
                continue
            if block is not None:
                classes.append(block.close())
            block = _Block(m.group(1), m.group(2))
            continue
        if block is None:
            raise TraceFormatError(
                f"not a ProGuard/R8 mapping file (line {number})",
                expected="a class line before member lines",
                found=repr(stripped[:60]),
            )
        m = _METHOD.match(stripped)
        if m is not None:
            block.lines.append(_method_line(block, m))
        elif not _FIELD.match(stripped):
            skipped.append(number)
    if block is not None:
        classes.append(block.close())
    notes: tuple[str, ...] = ()
    if skipped:
        first = ", ".join(str(n) for n in skipped[:5])
        notes = (f"{len(skipped)} line(s) of the mapping were not understood (line {first}…)",)
    return Mapping(tuple(classes), hashlib.sha256(raw).hexdigest(), notes)


def _method_line(block: _Block, m: re.Match[str]) -> _Line:
    start, end, returns, name, args, obfuscated = m.groups()
    owner = block.original
    if "." in name:
        owner, _, name = name.rpartition(".")
    arg_types = tuple(a.strip() for a in args.split(",")) if args.strip() else ()
    method = MappedMethod(owner, name, returns, arg_types, obfuscated)
    span = (int(start), int(end)) if start is not None else None
    return _Line(method, span)


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
            _update_last(block, synthesized=True)
    elif kind == _R8 + "residualsignature" and not on_class:
        sig = info.get("signature")
        if isinstance(sig, str):
            _update_last(block, residual=sig)
    elif kind == _R8 + "outline" and not on_class:
        _update_last(block, outline=True)


def _update_last(block: _Block, **changes: object) -> None:
    last = block.lines[-1]
    block.lines[-1] = _Line(replace(last.method, **changes), last.range)  # type: ignore[arg-type]
