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
I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]


def parse_summary(text: bytes, diags: list[Diagnostic]) -> tuple[int | None, dict[str, str]]:
    """The `*version` number and the key=value options of a V2 summary, in file order
    (the V1 key parser of `keytext.py`; a V2 summary has no thread or method lines)."""
    key = parse_key(text, diags, where="summary")
    return key.version, key.options


def build_threads(
    infos: list[tuple[int, int, bytes]], used: list[tuple[int, int]], diags: list[Diagnostic]
) -> tuple[ThreadTable, I64]:
    """Thread rows in order of first appearance (info packet or block); returns the table
    and the row of every block of `used` ((offset, tid) per block, in file order).

    A thread info giving a new name to a tid whose row already has blocks, followed by more
    blocks of that tid, starts a new row with the same id (the VM reused the tid); a new name
    with no blocks on one side of it renames the row (the last name wins)."""
    packets = sorted(
        [(offset, 0, i) for i, (offset, _, _) in enumerate(infos)]
        + [(offset, 1, j) for j, (offset, _) in enumerate(used)]
    )
    ids: list[int] = []
    names: list[str | None] = []
    has_blocks: list[bool] = []
    current: dict[int, int] = {}  # tid -> its row now
    pending: dict[int, str] = {}  # tid -> a new name waiting for the tid's next block
    block_rows = np.zeros(len(used), dtype=np.int64)
    renamed = reused = 0

    def new_row(tid: int, name: str | None) -> int:
        current[tid] = len(ids)
        ids.append(tid)
        names.append(name)
        has_blocks.append(False)
        return len(ids) - 1

    for _, kind, i in packets:
        if kind == 0:
            tid, name = infos[i][1], decode_name(infos[i][2])[0]
            row = current.get(tid)
            if row is None:
                new_row(tid, name)
            elif names[row] is None:
                names[row] = name
            elif has_blocks[row]:
                if name == names[row]:
                    pending.pop(tid, None)
                else:
                    pending[tid] = name
            elif name != names[row]:
                names[row] = name
                renamed += 1
            continue
        tid = used[i][1]
        row = current.get(tid)
        if row is None:
            row = new_row(tid, None)
        elif tid in pending:
            row = new_row(tid, pending.pop(tid))
            reused += 1
        block_rows[i] = row
        has_blocks[row] = True
    for tid, name in pending.items():  # renamed after its last block: the last name wins
        names[current[tid]] = name
        renamed += 1
    if reused:
        diags.append(
            Diagnostic(
                "thread-id-reused",
                f"{reused} thread info packet(s) gave a new name to a thread id that already "
                "had entry blocks, and more blocks followed (the VM reused the tid): each "
                "starts a new row with the same id",
                count=reused,
            )
        )
    if renamed:
        diags.append(
            Diagnostic(
                "thread-renamed",
                f"{renamed} thread info packet(s) gave a new name to a thread id already named "
                "(a reused tid or a rename); the last name wins and the records are merged",
                count=renamed,
            )
        )
    unnamed = {tid for tid, name in zip(ids, names, strict=True) if name is None}
    if unnamed:
        diags.append(
            Diagnostic(
                "unknown-thread",
                f"{len(unnamed)} thread id(s) have entry blocks but no thread info packet; "
                "they are shown as [tid]",
                count=len(unnamed),
            )
        )
    return thread_table(ids, names), block_rows


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
