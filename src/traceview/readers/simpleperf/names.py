"""Call-chain frames become method rows: Java methods by their Java name, native code as
`symbol (libfoo.so)`, unresolved addresses as `libfoo.so+0x1234`.

A frame is resolved when its `symbol_id` indexes its file's symbol table. Java frames are those
simpleperf marks interpreted or JIT-compiled (`execution_type` 1, 2), or those in dex code
(`.jar`, `.apk`, `.dex`, `.vdex`, `.oat`, `.odex`) or ART's JIT code cache (`[JIT app cache]`,
`[anon:dalvik-jit-code-cache]`, `/memfd:jit-cache`) whose symbol is a dotted Java name: one row
per Java method however it ran (interpreted, AOT-compiled or JIT-compiled). Native frames keep
one row per (file, symbol), unresolved ones one per (file, address).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from traceview.readers.assemble import MethodFields
from traceview.readers.simpleperf.samples import Samples

I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]

INTERPRETED, JIT = 1, 2
_DEX = (".jar", ".apk", ".dex", ".vdex", ".oat", ".odex")
_JAVA = re.compile(r"[\w$]+(?:\.[\w$<>\-]+)+")
_DEDUPED = " [DEDUPED]"


@dataclass
class Named:
    """The method rows (`fields`, one per distinct method) and each call-chain entry's row."""

    fields: MethodFields
    row: I32
    unknown_files: int


def is_java_file(path: str) -> bool:
    """Dex code or ART's JIT code cache, by the path simpleperf gives the mapping."""
    low = path.lower()
    return (
        low.endswith(_DEX)
        or low.startswith("[jit")
        or "jit-code-cache" in low
        or ("jit-cache" in low)
    )


def java_name(symbol: str) -> tuple[str, str, str] | None:
    """(class, method, arguments) of a Java symbol (`com.a.B.run`, `void com.a.B.run(int)`,
    `... [DEDUPED]`), or None when it is not one."""
    text = symbol[: -len(_DEDUPED)] if symbol.endswith(_DEDUPED) else symbol
    args = ""
    if text.endswith(")") and "(" in text:
        cut = text.index("(")
        text, args = text[:cut], text[cut:]
    if " " in text:
        text = text.rsplit(" ", 1)[1]  # a return type before the name
    if not _JAVA.fullmatch(text):
        return None
    cls, _, method = text.rpartition(".")
    return cls, method, args


def _base(path: str) -> str:
    return re.split(r"[\\/]", path)[-1] or path


def name(samples: Samples, files: dict[int, tuple[str, list[str]]]) -> Named:
    """A method row for every call-chain entry of `samples`."""
    ids = np.array(sorted(files), dtype=np.int64)
    counts = np.array([len(files[int(i)][1]) for i in ids], dtype=np.int64)
    base = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    at = np.minimum(np.searchsorted(ids, samples.file), max(len(ids) - 1, 0))
    known = (ids[at] == samples.file) if len(ids) else np.zeros(len(samples.file), dtype=bool)
    nsym = np.where(known, counts[at] if len(ids) else 0, 0)
    resolved = known & (samples.symbol >= 0) & (samples.symbol < nsym)
    total = int(base[-1])
    key = np.where(resolved, base[at] + samples.symbol if len(ids) else 0, 0).astype(np.int64)
    loose = np.flatnonzero(~resolved)
    uniq, inverse = _pairs(samples.file[loose], samples.vaddr[loose])
    key[loose] = total + inverse
    java_run = np.zeros(total + len(uniq), dtype=bool)
    ran = np.isin(samples.execution, (INTERPRETED, JIT))
    java_run[key[ran]] = True
    # the keys in use, numbered in order (a table over the keys: no sort of every frame)
    seen = np.zeros(total + len(uniq), dtype=bool)
    seen[key] = True
    used = np.flatnonzero(seen)
    number = np.cumsum(seen) - 1
    entry_key = number[key]
    flat = [s for i in ids.tolist() for s in files[i][1]]
    paths = [files[i][0] for i in ids.tolist()]
    owner = np.repeat(np.arange(len(ids)), counts)
    rows: dict[tuple[str, ...], int] = {}
    of_key = np.empty(len(used), dtype=np.int32)
    fields = MethodFields()
    for k, u in enumerate(used.tolist()):
        if u < total:
            path = paths[int(owner[u])]
            symbol = flat[u]
            java = java_name(symbol) if (java_run[u] or is_java_file(path)) else None
            ident = ("java", *java) if java else ("native", symbol, path)
        else:
            f, v = uniq[u - total]
            fid = int(f)
            path = files[fid][0] if fid in files else f"[file {fid}]"
            ident = ("addr", path, f"{int(v):x}")
        row = rows.get(ident)
        if row is None:
            row = rows[ident] = len(rows)
            _add(fields, ident)
        of_key[k] = row
    _disambiguate(fields, list(rows))
    unknown = int(np.count_nonzero(~known))
    return Named(fields, of_key[entry_key], unknown)


def _pairs(file: I64, vaddr: npt.NDArray[np.uint64]) -> tuple[npt.NDArray[np.void], I64]:
    """The distinct (file, vaddr) pairs of unresolved frames and each frame's pair number."""
    if (
        len(file)
        and int(file.min()) >= 0
        and int(file.max()) < 1 << 16
        and (int(vaddr.max()) < 1 << 48)
    ):  # one uint64 key sorts far faster than a record
        packed = (file.astype(np.uint64) << np.uint64(48)) | vaddr
        u, inverse = np.unique(packed, return_inverse=True)
        out = np.empty(len(u), dtype=[("f", "<i8"), ("v", "<u8")])
        out["f"], out["v"] = (u >> np.uint64(48)).astype(np.int64), u & np.uint64((1 << 48) - 1)
        return out, inverse.ravel().astype(np.int64)
    pairs = np.empty(len(file), dtype=[("f", "<i8"), ("v", "<u8")])
    pairs["f"], pairs["v"] = file, vaddr
    u2, inverse2 = np.unique(pairs, return_inverse=True)
    return u2, inverse2.ravel().astype(np.int64)


def _add(fields: MethodFields, ident: tuple[str, ...]) -> None:
    if ident[0] == "java":
        fields.add(ident[1], ident[2], ident[3], "", -1)
    elif ident[0] == "native":
        fields.add(f"{ident[1]} ({_base(ident[2])})", "", "", ident[2], -1)
    else:
        fields.add(f"{_base(ident[1])}+0x{ident[2]}", "", "", ident[1], -1)


def _disambiguate(fields: MethodFields, idents: list[tuple[str, ...]]) -> None:
    """Two native rows with one label (the same symbol in two files of one name, e.g.
    /system/lib64/libc++.so and an APEX copy) show their whole paths instead."""
    seen: dict[str, list[int]] = {}
    for row, ident in enumerate(idents):
        if ident[0] != "java":
            seen.setdefault(fields.class_name[row], []).append(row)
    for rows in seen.values():
        if len(rows) > 1:
            for row in rows:
                kind, a, b = idents[row][:3]
                fields.class_name[row] = f"{a} ({b})" if kind == "native" else f"{a}+0x{b}"
