"""Build the V2 thread and method tables and read the V2 summary text.

`readers/v2.py` calls these after the packet walk: thread infos (real u4 tids, last name
wins), method infos (u8 `ArtMethod*` ids, `class\\tname\\tsig\\tfile[\\tline]` text) plus rows
for ids the records use but no info declared. Names are decoded losslessly.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from traceview.model import Diagnostic, MethodTable, ThreadTable

U64 = npt.NDArray[np.uint64]
I32 = npt.NDArray[np.int32]


def decode_name(raw: bytes) -> tuple[str, int]:
    """(text, kind): UTF-8 (0), else Modified UTF-8 (1), else surrogateescape (2). Lossless."""
    try:
        return raw.decode("utf-8"), 0
    except UnicodeDecodeError:
        pass
    try:
        text = raw.replace(b"\xc0\x80", b"\x00").decode("utf-8", "surrogatepass")
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le"), 1
    except UnicodeError:
        return raw.decode("utf-8", "surrogateescape"), 2


def parse_summary(text: bytes) -> tuple[int | None, dict[str, str]]:
    """The `*version` number and the key=value options of a V2 summary, in file order."""
    version: int | None = None
    options: dict[str, str] = {}
    expect_version = False
    for raw in text.split(b"\n"):
        line = raw.rstrip(b"\r")
        if line.startswith(b"*"):
            word = line[1:].strip().lower()
            if word == b"end":
                break
            expect_version = word == b"version"
            continue
        if expect_version:
            expect_version = False
            try:
                version = int(line.strip())
                continue
            except ValueError:
                pass
        key, eq, value = line.partition(b"=")
        if eq:
            options[decode_name(key.strip())[0]] = decode_name(value.strip())[0]
    return version, options


def build_threads(
    infos: list[tuple[int, int, bytes]], used: list[tuple[int, int]], diags: list[Diagnostic]
) -> tuple[ThreadTable, dict[int, int]]:
    """Thread rows in order of first appearance (info packet or block); returns tid -> row."""
    names: dict[int, str] = {}
    renamed = 0
    first: dict[int, int] = {}
    for offset, tid, raw in infos:
        name = decode_name(raw)[0]
        if tid in names and names[tid] != name:
            renamed += 1
        names[tid] = name
        first.setdefault(tid, offset)
    unnamed: set[int] = set()
    for offset, tid in used:
        if tid not in first or offset < first[tid]:
            first[tid] = min(offset, first.get(tid, offset))
        if tid not in names:
            unnamed.add(tid)
    order = sorted(first, key=lambda t: (first[t], t))
    if renamed:
        diags.append(
            Diagnostic(
                "thread-renamed",
                f"{renamed} thread info packet(s) gave a new name to a thread id already named "
                "(a reused tid or a rename); the last name wins and the records are merged",
                count=renamed,
            )
        )
    if unnamed:
        diags.append(
            Diagnostic(
                "unknown-thread",
                f"{len(unnamed)} thread id(s) have entry blocks but no thread info packet; "
                "they are shown as [tid]",
                count=len(unnamed),
            )
        )
    table = ThreadTable(id=np.array(order, dtype=np.int64), name=tuple(names.get(t) for t in order))
    return table, {t: i for i, t in enumerate(order)}


def build_methods(
    infos: list[tuple[int, int, bytes]],
    used: U64,
    id_shift: int,
    diags: list[Diagnostic],
) -> tuple[MethodTable, U64]:
    """Method rows: declared infos in file order (last text wins), then undeclared used ids
    in ascending order. Returns the table and its id column sorted-index helper ids."""
    texts: dict[int, bytes] = {}
    dup = 0
    for _, ident, raw in infos:
        key = ident << id_shift
        if key in texts and texts[key] != raw:
            dup += 1
        texts[key] = raw
    kinds = [0, 0, 0]
    cls: list[str] = []
    name: list[str] = []
    sig: list[str] = []
    src: list[str] = []
    line: list[int] = []
    for raw in texts.values():
        text, kind = decode_name(raw.rstrip(b"\n").rstrip(b"\r"))
        kinds[kind] += 1
        parts = text.split("\t")
        _fields(parts, cls, name, sig, src, line)
    declared_ids = np.fromiter(texts.keys(), dtype=np.uint64, count=len(texts))
    unknown = np.setdiff1d(np.unique(used), declared_ids)
    for value in unknown.tolist():
        cls.append(f"(0x{value:x})")
        name.append("")
        sig.append("")
        src.append("")
        line.append(-1)
    if dup:
        diags.append(
            Diagnostic(
                "duplicate-method",
                f"{dup} method id(s) were declared again with different text (an ArtMethod* "
                "reused after class unloading, or a redefinition); the last declaration wins",
                count=dup,
            )
        )
    if len(unknown):
        diags.append(
            Diagnostic(
                "unknown-method",
                f"{len(unknown)} method id(s) are used by records but never declared by a "
                "method info packet; they are shown as (0x…)",
                count=len(unknown),
            )
        )
    for kind, code, what in (
        (1, "modified-utf8", "were Modified UTF-8; decoded as such"),
        (2, "bad-name-encoding", "are not valid UTF-8; bad bytes kept as surrogate escapes"),
    ):
        if kinds[kind]:
            diags.append(
                Diagnostic(code, f"{kinds[kind]} method info text(s) {what}", count=kinds[kind])
            )
    ids = np.concatenate([declared_ids, unknown.astype(np.uint64)])
    declared = np.zeros(len(ids), dtype=bool)
    declared[: len(declared_ids)] = True
    table = MethodTable(
        id=ids,
        class_name=tuple(cls),
        name=tuple(name),
        signature=tuple(sig),
        source_file=tuple(src),
        line=np.array(line, dtype=np.int32),
        declared=declared,
    )
    return table, ids


def _fields(
    parts: list[str],
    cls: list[str],
    name: list[str],
    sig: list[str],
    src: list[str],
    line: list[int],
) -> None:
    """Append one method text's fields: class, name, signature, file, optional line number."""
    n = len(parts)
    cls.append(parts[0])
    if n >= 3 and not parts[2].startswith("(") and _is_int(parts[2]):
        name.append("")  # traceview's (class, file, line) form
        sig.append("")
        src.append(parts[1])
        line.append(_int32(parts[2]))
        return
    name.append(parts[1] if n > 1 else "")
    sig.append(parts[2] if n > 2 else "")
    file = parts[3] if n > 3 else ""
    src.append("" if file == "(null)" else file)
    line.append(_int32(parts[4]) if n > 4 and _is_int(parts[4]) else -1)


def rows_of(ids: U64, values: U64) -> npt.NDArray[np.int32]:
    """The row of every value in the id column `ids` (every value must be present)."""
    order = np.argsort(ids, kind="stable")
    pos = np.searchsorted(ids[order], values)
    return order[pos].astype(np.int32)


def _is_int(text: str) -> bool:
    t = text.strip()
    return t.lstrip("-").isdigit() if t else False


def _int32(text: str) -> int:
    return max(-(2**31), min(2**31 - 1, int(text.strip())))
