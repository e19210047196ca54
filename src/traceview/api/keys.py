"""`method_key`: one int64 per method that is the same in every trace and every release, so
tables of many traces join and group on it (the `methods` and `profile` tables carry it).

The key is the first 8 bytes, big-endian and signed, of the SHA-256 of the UTF-8 text
`class<TAB>name<TAB>signature`: the names as the tables show them (deobfuscated by a mapping
when one is given, undecodable bytes as `\\xNN`), the class with dots (Dalvik's `a/b/C` and
ART's `a.b.C` are one class). Any engine can compute it from a name: DuckDB's, Spark's,
Trino's and BigQuery's SQL all have SHA-256 (docs/dataset.md). Hashing runs once per method
of a trace, never per call: a table of calls reaches the key through its method row.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from traceview.analysis.view import View
from traceview.api.table import names_array


def key_text(class_name: str, name: str, signature: str) -> str:
    """The text a method's key hashes."""
    return f"{class_name.replace('/', '.')}\t{name}\t{signature}"


def method_key(class_name: str, name: str, signature: str) -> int:
    """The key of one method."""
    return int(method_keys([class_name], [name], [signature])[0])


def method_keys(
    class_names: Iterable[str], names: Iterable[str], signatures: Iterable[str]
) -> npt.NDArray[np.int64]:
    """The keys of many methods, in order (equal-length inputs)."""
    digests = b"".join(
        hashlib.sha256(key_text(c, n, s).encode("utf-8", "backslashreplace")).digest()[:8]
        for c, n, s in zip(class_names, names, signatures, strict=True)
    )
    out: npt.NDArray[np.int64] = np.frombuffer(digests, dtype=">i8").astype(np.int64)
    return out


def keys_of(view: View) -> npt.NDArray[np.int64]:
    """The key of every method row of the view's trace, named as the view names them
    (computed once per session and renaming)."""

    def build() -> npt.NDArray[np.int64]:
        m = view.methods
        return method_keys(names_array(m.class_name), names_array(m.name), names_array(m.signature))

    return view.session.memo("method-keys", view.query.rename, build)


__all__ = ["key_text", "keys_of", "method_key", "method_keys"]
