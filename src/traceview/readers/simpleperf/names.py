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

import numpy as np
import numpy.typing as npt

from traceview.readers.assemble import MethodFields

I32 = npt.NDArray[np.int32]
U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]

INTERPRETED, JIT = 1, 2
_DEX = (".jar", ".apk", ".dex", ".vdex", ".oat", ".odex")
_JAVA = re.compile(r"[\w$]+(?:\.[\w$<>\-]+)+")
_DEDUPED = " [DEDUPED]"


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


class Namer:
    """Gives call-chain entries their method rows, chunk after chunk of samples: rows are
    made the first time a method (or an unresolved address) is met, so Python runs once per
    distinct frame, never per entry."""

    def __init__(self, files: dict[int, tuple[str, list[str]]]) -> None:
        self.files = files
        self.ids = np.array(sorted(files), dtype=np.int64)
        counts = np.array([len(files[int(i)][1]) for i in self.ids], dtype=np.int64)
        self.counts = np.append(counts, 0)  # one more: "no such file" has no symbols
        dense = int(self.ids.max()) + 1 if len(self.ids) and int(self.ids.max()) < 1 << 20 else 0
        self.index = np.full(dense, len(self.ids), dtype=np.int64)  # file id -> position
        small = self.ids[self.ids < dense]
        self.index[small] = np.searchsorted(self.ids, small)
        self.base = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self.flat = [s for i in self.ids.tolist() for s in files[i][1]]
        self.paths = [files[i][0] for i in self.ids.tolist()]
        self.owner = np.repeat(np.arange(len(self.ids)), counts)
        self.symbol_row = np.full(2 * int(self.base[-1]), -1, dtype=np.int32)
        self.addresses: dict[int, tuple[U64, I32]] = {}
        self.rows: dict[tuple[str, ...], int] = {}
        self.fields = MethodFields()
        self.unknown_files = 0
        self._last: tuple[I64 | None, I64] = (None, np.zeros(0, dtype=np.int64))

    def __call__(self, vaddr: U64, file: I64, symbol: I64, execution: I64) -> I32:
        """The method row of each entry."""
        out = np.empty(len(file), dtype=np.int32)
        at = self._locate(file)
        known = at < len(self.ids)
        self.unknown_files += len(file) - int(np.count_nonzero(known))
        resolved = known & (symbol >= 0) & (symbol < self.counts[at])
        rs = np.flatnonzero(resolved)
        key = (self.base[at[rs]] + symbol[rs]) * 2
        if execution.any():
            key += (execution[rs] == INTERPRETED) | (execution[rs] == JIT)
        rows = self.symbol_row[key]
        new = np.flatnonzero(rows < 0)
        if len(new):
            for k in np.unique(key[new]).tolist():
                self.symbol_row[k] = self._symbol(k // 2, bool(k % 2))
            rows[new] = self.symbol_row[key[new]]
        out[rs] = rows
        loose = np.flatnonzero(~resolved)
        if len(loose):
            order = loose[np.argsort(file[loose], kind="stable")]
            edges = np.flatnonzero(np.diff(file[order])) + 1
            for group in np.split(order, edges):
                out[group] = self._addresses(int(file[group[0]]), vaddr[group])
        return out

    def _locate(self, file: I64) -> I64:
        """Each file id's position among the file records (`len(ids)` when none gives it);
        ids are 0, 1, 2, ... in practice: a table over them, a search otherwise."""
        if file is self._last[0]:  # `loose` then the call, on the same entries
            return self._last[1]
        at = np.full(len(file), len(self.ids), dtype=np.int64)
        small = (file >= 0) & (file < len(self.index))
        at[small] = self.index[file[small]]
        if not small.all():
            other = np.flatnonzero(~small)
            hit = np.searchsorted(self.ids, file[other])
            found = (
                (hit < len(self.ids))
                & (self.ids[np.minimum(hit, len(self.ids) - 1)] == file[other])
                if len(self.ids)
                else np.zeros(len(other), dtype=bool)
            )
            at[other[found]] = hit[found]
        self._last = (file, at)
        return at

    def loose(self, file: I64, symbol: I64) -> npt.NDArray[np.bool_]:
        """Which frames have no symbol (named by their address)."""
        at = self._locate(file)
        return ~((at < len(self.ids)) & (symbol >= 0) & (symbol < self.counts[at]))

    def _symbol(self, g: int, ran: bool) -> int:
        path, symbol = self.paths[int(self.owner[g])], self.flat[g]
        java = java_name(symbol) if (ran or is_java_file(path)) else None
        return self._row(("java", *java) if java else ("native", symbol, path))

    def _addresses(self, fid: int, vaddr: U64) -> I32:
        """Rows of unresolved addresses of one file (new ones get rows)."""
        values, inverse = np.unique(vaddr, return_inverse=True)
        seen, rows = self.addresses.get(
            fid, (np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int32))
        )
        pos = np.minimum(np.searchsorted(seen, values), max(len(seen) - 1, 0))
        hit = seen[pos] == values if len(seen) else np.zeros(len(values), dtype=bool)
        mine = np.where(hit, rows[pos] if len(seen) else 0, -1).astype(np.int32)
        fresh = np.flatnonzero(~hit)
        path = self.files[fid][0] if fid in self.files else f"[file {fid}]"
        for k in fresh.tolist():
            mine[k] = self._row(("addr", path, f"{int(values[k]):x}"))
        if len(fresh):
            both = np.concatenate([seen, values[fresh]])
            order = np.argsort(both, kind="stable")
            self.addresses[fid] = (both[order], np.concatenate([rows, mine[fresh]])[order])
        return mine[inverse.ravel()]

    def _row(self, ident: tuple[str, ...]) -> int:
        row = self.rows.get(ident)
        if row is None:
            row = self.rows[ident] = len(self.rows)
            _add(self.fields, ident)
        return row

    def finish(self) -> MethodFields:
        """The method rows' fields, native labels shared by two files made unique."""
        _disambiguate(self.fields, list(self.rows))
        return self.fields


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
