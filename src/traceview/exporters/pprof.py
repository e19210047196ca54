"""The `pprof` format: a gzipped `profile.proto` (github.com/google/pprof/proto/profile.proto),
read by `go tool pprof`, pprof.me, Pyroscope, Parca and the pprof-format npm package.

One sample per node of the selection's merged top-down tree (per thread, each sample labelled
`thread` with the thread's name and id, or merged with `merge_threads`): its stack is the
node's call path as location ids, leaf first, and its values are the node's own calls
(`calls`/`count`) and self time on each clock the trace records (`cpu`/`nanoseconds`,
`wall`/`nanoseconds`). Summed over the samples, each clock's value is the profile's thread
totals minus toplevel time; `default_sample_type` is the query's clock. Frames deeper than
1024 (`stacks.MAX_DEPTH`) are summed into one `[deeper frames]` frame per path. One function and one
location per method (name = its label, system name = `class.method`, file and line when
known); no mappings (Java methods have no addresses). Written deterministically (no time
stamp, gzip mtime 0).
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from typing import IO, Any

import numpy as np

from traceview.analysis.view import View
from traceview.exporters.protowire import bytes_field, int_field, varint
from traceview.exporters.stacks import DEEPER, fold_deep, forest, frame_names
from traceview.model import visible

NAME = "pprof"
SUFFIXES = (".pb.gz", ".pb", ".pprof", ".pprof.gz")
BINARY = True
SUBJECT = "view"


@dataclass(frozen=True)
class Options:
    """`merge_threads`: samples of one tree for all the selected threads, without the
    `thread` label, instead of one tree per thread."""

    merge_threads: bool = False


class Strings:
    """A profile's string table: index 0 is "" as the format requires."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {"": 0}

    def __call__(self, text: str) -> int:
        found = self.index.get(text)
        if found is None:
            found = self.index[text] = len(self.index)
        return found

    def fields(self) -> bytes:
        return b"".join(bytes_field(6, s.encode("utf-8", "backslashreplace")) for s in self.index)


def profile_bytes(view: View, merge_threads: bool) -> bytes:
    """The uncompressed `Profile` message (one tree for all threads when `merge_threads`)."""
    s = Strings()
    clocks = view.session.clocks
    kinds = [("calls", "count"), *((c, "nanoseconds") for c in clocks)]
    parts: list[bytes] = []
    for kind, unit in kinds:
        parts.append(bytes_field(1, int_field(1, s(kind)) + int_field(2, s(unit))))
    names = frame_names(view)
    methods = view.methods
    used: set[int] = set()
    deeper = len(methods) + 1  # the location (and function) id of the folded deep frames
    thread_key = s("thread")
    for part in forest(view, merge_threads):
        tree = part.tree
        label = (
            bytes_field(3, int_field(1, thread_key) + int_field(2, s(part.label)))
            if part.label is not None
            else b""
        )
        rows, deep = fold_deep(tree)
        parent = tree.parent.tolist()
        loc = (tree.method.astype(np.int64) + 1).tolist()
        used.update(set(tree.method[rows].tolist()))
        values = [tree.calls.tolist(), *(tree.excl[c].tolist() for c in clocks)]
        stacks: list[bytes] = [b""] * len(parent)
        for i in rows.tolist():
            p = parent[i]
            stack = varint(loc[i]) + (stacks[p] if p >= 0 else b"")
            stacks[i] = stack
            vals = b"".join(varint(v[i]) for v in values)
            parts.append(bytes_field(2, bytes_field(1, stack) + bytes_field(2, vals) + label))
        folded = [deep.calls.tolist(), *(deep.excl[c].tolist() for c in clocks)]
        for k, top in enumerate(deep.top.tolist()):
            stack = varint(deeper) + stacks[top]
            vals = b"".join(varint(v[k]) for v in folded)
            parts.append(bytes_field(2, bytes_field(1, stack) + bytes_field(2, vals) + label))
            used.add(deeper - 1)
    for m in sorted(used):
        fid = m + 1
        known = m < len(methods)
        line = int(methods.line[m]) if known else -1
        src = visible(methods.source_file[m]) if known else ""
        fn = (
            int_field(1, fid)
            + int_field(2, s(names[m] if known else DEEPER))
            + int_field(3, s(visible(methods.full_name(m)) if known else DEEPER))
            + int_field(4, s(src))
            + int_field(5, max(line, 0))
        )
        where = bytes_field(4, int_field(1, fid) + int_field(2, max(line, 0)))
        parts.append(bytes_field(4, int_field(1, fid) + where))
        parts.append(bytes_field(5, fn))
    tail = int_field(14, s(view.query.clock))
    return b"".join(parts) + s.fields() + tail


def export(view: View, out: IO[Any], options: Options) -> None:
    """The gzipped profile (deterministic bytes)."""
    data = profile_bytes(view, options.merge_threads)
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0, compresslevel=6) as z:
        z.write(data)


__all__ = ["Options", "Strings", "export", "profile_bytes"]
