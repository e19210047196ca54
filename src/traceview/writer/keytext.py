"""The text half of a V1 trace: method/thread lines and the `*version … *end` key or summary.

Used by `writer.v1` for the key section of regular and split files, the trailing summary and
the inline packets of streaming files (format.md §1.5 and part (b)).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal

import numpy as np
import numpy.typing as npt

from traceview.model import Trace

Style = Literal["art", "dalvik"]

# the order ART's CreateSummary writes its options in; computed keys missing from a trace's
# options are appended in this order
STANDARD_OPTIONS = (
    "data-file-overflow",
    "clock",
    "elapsed-time-usec",
    "num-method-calls",
    "clock-call-overhead-nsec",
    "vm",
    "pid",
)


def encode(text: str) -> bytes:
    """Text as the file's bytes: UTF-8, with undecodable bytes a reader escaped given back."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def _field(text: str) -> str:
    # a tab or newline inside a name would break the line grammar of the key section
    return text.replace("\t", " ").replace("\n", " ").replace("\r", " ")


def method_id_text(method_id: int, style: Style) -> str:
    """The id as the VM prints it: Dalvik `0x%08x`, ART `%#x` (so the first method is `0`)."""
    if style == "dalvik":
        return f"0x{method_id:08x}"
    return "0" if method_id == 0 else f"{method_id:#x}"


def class_text(name: str, style: Style) -> str:
    """Dalvik writes `java/lang/String`, ART `java.lang.String`."""
    return name.replace(".", "/") if style == "dalvik" else name.replace("/", ".")


def method_lines(
    trace: Trace, rows: Iterable[int], ids: npt.NDArray[np.uint64], style: Style
) -> list[str]:
    """One `*methods` line (with its newline) per method row, ids taken from `ids[row]`."""
    me = trace.methods
    lines = []
    for row in rows:
        source = _field(me.source_file[row])
        fields = [
            method_id_text(int(ids[row]), style),
            class_text(_field(me.class_name[row]), style),
            _field(me.name[row]),
            _field(me.signature[row]),
            source or ("(null)" if style == "art" else ""),  # what ART prints for no file
        ]
        if style == "dalvik":
            fields.append(str(int(me.line[row])))  # Dalvik writes -1/-2 for native methods
        lines.append("\t".join(fields) + "\n")
    return lines


def thread_lines(trace: Trace, rows: Iterable[int]) -> list[str]:
    """One `*threads` line per named thread row (unnamed threads are left out, as ART does)."""
    th = trace.threads
    named = [(r, th.name[r]) for r in rows]
    return [f"{int(th.id[r])}\t{_field(n)}\n" for r, n in named if n is not None]


def options_text(
    options: Mapping[str, str], computed: Mapping[str, str | None], *, drop: Iterable[str] = ()
) -> str:
    """`key=value` lines: `options` in their order, with `computed` values set or appended.

    A computed value of None means "keep the option if the trace had it, else leave it out".
    """
    merged = {k: v for k, v in options.items() if k not in set(drop)}
    for key in STANDARD_OPTIONS:
        if key in computed and computed[key] is not None:
            merged[key] = str(computed[key])
    for key, value in computed.items():
        if key not in STANDARD_OPTIONS and value is not None:
            merged[key] = value
    return "".join(f"{_field(k)}={_field(v)}\n" for k, v in merged.items())


def key_text(
    *, version: int, options: str, threads: Iterable[str], methods: Iterable[str]
) -> bytes:
    """The whole `*version … *end` section as bytes."""
    parts = [f"*version\n{version}\n", options, "*threads\n", *threads, "*methods\n", *methods]
    parts.append("*end\n")
    return encode("".join(parts))
