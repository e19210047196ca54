"""The "my code" filter: keep the calls of classes under some package prefixes, fold the rest.

`keep_packages(calls, prefixes)` returns a `CallTable` holding only the calls whose class
starts with one of the prefixes; every other call folds into its nearest kept caller (its
time becomes that caller's exclusive time, its kept callees become that caller's children).
Calls with no kept caller fold into the thread's top level. The result is an ordinary call
table (pre-order, contiguous subtrees, same event rows), so the profile, the call tree, the
flame graph and the timeline work on it unchanged. Its `keep_calls` (any mask) re-links with
`filters.relink`.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from traceview.analysis.calls import CallTable
from traceview.analysis.filters import relink
from traceview.analysis.query import normalise_prefixes
from traceview.model import MethodTable


def method_mask(methods: MethodTable, prefixes: Iterable[str]) -> npt.NDArray[np.bool_]:
    """True for the method rows whose class is `prefix` or inside `prefix.` for some prefix.

    Dalvik's slash form (`Lcom/a/B;` or `com/a/B`) is compared in dotted form.
    """
    pre = normalise_prefixes(tuple(prefixes))
    out = np.zeros(len(methods), dtype=bool)
    if not pre:
        return out
    for row, cls in enumerate(methods.class_name):  # one pass over methods, not calls
        name = cls.replace("/", ".")
        if name.startswith("L") and name.endswith(";"):
            name = name[1:-1]
        out[row] = any(name == p or name.startswith(p + ".") for p in pre)
    return out


def keep_packages(
    calls: CallTable, prefixes: Iterable[str], methods: MethodTable | None = None
) -> CallTable:
    """The calls of classes under `prefixes`, every other call folded into its kept caller
    (`methods`: the names to match, default the trace's; a renaming passes the original ones)."""
    keep = method_mask(methods or calls.trace.methods, prefixes)[calls.method]
    return keep_calls(calls, keep)


def keep_calls(calls: CallTable, keep: npt.NDArray[np.bool_]) -> CallTable:
    """The rows where `keep` is True, re-linked to their nearest kept ancestors."""
    n = len(calls)
    # pointer jumping: after k rounds `up` skips up to 2**k unkept ancestors
    up = calls.parent.astype(np.int64)
    while True:
        has = up >= 0
        bad = np.zeros(n, dtype=bool)
        bad[has] = ~keep[up[has]]
        if not bad.any():
            break
        up[bad] = up[up[bad]]  # every skipped ancestor is unkept (invariant)
    kept = np.flatnonzero(keep)
    return relink(calls, keep, kept, up[kept])
