"""V2 thread and method info packets, to the rows of the shared assembly (`assemble.py`).

`v2/reader.py` calls these after the packet walk: thread infos (real u4 tids, last name
wins), method infos (u8 `ArtMethod*` ids, `class\\tname\\tsig\\tfile[\\tline]` text) plus rows
for ids the records use but no info declared; and the V2 summary text. Names are decoded
losslessly.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from traceview.model import Diagnostic, MethodTable, ThreadTable
from traceview.readers.assemble import MethodFields, method_table, thread_table
from traceview.readers.idmap import IdMap
from traceview.readers.keytext import decode_name, int32, is_int, parse_key

U64 = npt.NDArray[np.uint64]
I32 = npt.NDArray[np.int32]


def parse_summary(text: bytes, diags: list[Diagnostic]) -> tuple[int | None, dict[str, str]]:
    """The `*version` number and the key=value options of a V2 summary, in file order
    (the V1 key parser of `keytext.py`; a V2 summary has no thread or method lines)."""
    key = parse_key(text, diags, where="summary")
    return key.version, key.options


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
    table = thread_table(order, [names.get(t) for t in order])
    return table, {t: i for i, t in enumerate(order)}


def build_methods(
    infos: list[tuple[int, int, bytes]],
    used: U64,
    id_shift: int,
    diags: list[Diagnostic],
) -> tuple[MethodTable, I32]:
    """Method rows: declared infos in file order (last text wins), then the ids records use
    but no info declared, ascending. Returns the table and the row of every `used` id."""
    texts: dict[int, bytes] = {}
    dup = 0
    for _, ident, raw in infos:
        key = ident << id_shift
        old = texts.get(key)
        if old is not None and old != raw:
            dup += 1
        texts[key] = raw
    declared_ids = np.fromiter(texts.keys(), dtype=np.uint64, count=len(texts))
    rows = IdMap(declared_ids).lookup(used)
    miss = rows < 0
    unknown = np.unique(used[miss]) if miss.any() else np.zeros(0, dtype=np.uint64)
    if len(unknown):
        rows[miss] = len(declared_ids) + np.searchsorted(unknown, used[miss])
    cols = _parse_texts(list(texts.values()))
    kinds = cols[5]
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
    fields = MethodFields(cols[0], cols[1], cols[2], cols[3], cols[4])
    table = method_table(declared_ids, fields, unknown)
    return table, rows.astype(np.int32)


Columns = tuple[list[str], list[str], list[str], list[str], list[int], list[int]]


def _parse_texts(raws: list[bytes]) -> Columns:
    """Split method-info texts into columns; one decode and one split for all of them when
    every text is plain UTF-8 with the usual four fields (the 100k-method case)."""
    kinds = [0, 0, 0]
    stripped = [r[:-1] if r.endswith(b"\n") else r for r in raws]
    n = len(stripped)
    joined = b"\n".join(stripped)
    if n and b"\r" not in joined:
        raw = np.frombuffer(joined, dtype=np.uint8)
        newlines = np.flatnonzero(raw == 10)
        tabs_per_row = np.bincount(np.searchsorted(newlines, np.flatnonzero(raw == 9)), minlength=n)
        if len(newlines) == n - 1 and bool(np.all(tabs_per_row == 3)):
            try:
                text = joined.decode("utf-8")
            except UnicodeDecodeError:
                text = None
            if text is not None:
                flat = text.replace("\n", "\t").split("\t")
                src = flat[3::4]
                if "(null)" in src:
                    src = ["" if f == "(null)" else f for f in src]
                kinds[0] = n
                return flat[0::4], flat[1::4], flat[2::4], src, [-1] * n, kinds
    cols: Columns = ([], [], [], [], [], kinds)
    for one in stripped:
        text, kind = decode_name(one.rstrip(b"\r"))
        kinds[kind] += 1
        _fields(text.split("\t"), cols[0], cols[1], cols[2], cols[3], cols[4])
    return cols


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
    if n >= 3 and not parts[2].startswith("(") and is_int(parts[2]):
        name.append("")  # traceview's (class, file, line) form
        sig.append("")
        src.append(parts[1])
        line.append(int32(parts[2]))
        return
    name.append(parts[1] if n > 1 else "")
    sig.append(parts[2] if n > 2 else "")
    file = parts[3] if n > 3 else ""
    src.append("" if file == "(null)" else file)
    line.append(int32(parts[4]) if n > 4 and is_int(parts[4]) else -1)
