"""Labels a trace is added with (`--app A --build B --label k=v`, an upload's fields), checked
before anything is written: each bad label is refused in one line naming it.

`app` and `build` become folders of the dataset (`app=<app>/build=<build>/`), so their
values are only letters, digits and `. _ + -` (no path separator, nothing Spark or a file
system would escape, never `.` or `..`), at most 64 characters. Any other label is a column
(`branch`, `device`) or a key of the `labels` JSON: a name of lower-case letters, digits and
`_` (at most 32), a value of at most 128 printable characters without a backslash; `/` is
kept there (a branch is often `feature/x`) since no label but app and build is a path.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

PARTITIONED = ("app", "build")
MAX_LABELS = 16
_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
_FOLDER = re.compile(r"[A-Za-z0-9_+-][A-Za-z0-9._+-]{0,63}")
_VALUE_MAX = 128
RESERVED = ("date",)  # a partition the dataset sets itself

Labels = tuple[tuple[str, str], ...]


def check(labels: Mapping[str, str | None]) -> Labels:
    """The labels given (None values dropped), checked, sorted by name; ValueError naming
    the first bad one."""
    out: dict[str, str] = {}
    for name, value in labels.items():
        if value is None:
            continue
        if not _NAME.fullmatch(name):
            raise ValueError(
                f"bad label name {name!r}: lower-case letters, digits and _ (at most 32), "
                "starting with a letter"
            )
        if name in RESERVED:
            raise ValueError(f"label {name!r} is set by the dataset (the trace's day)")
        if name in PARTITIONED:
            if not _FOLDER.fullmatch(value) or value in (".", ".."):
                raise ValueError(
                    f"bad {name} {value!r}: it names a folder, so only letters, digits and "
                    ". _ + - (at most 64, no path separator)"
                )
        elif not value or len(value) > _VALUE_MAX:
            raise ValueError(f"bad label {name}: its value must be 1 to {_VALUE_MAX} characters")
        elif "\\" in value or not value.isprintable():
            raise ValueError(f"bad label {name}: no backslash or control characters")
        out[name] = value
    if len(out) > MAX_LABELS:
        raise ValueError(f"at most {MAX_LABELS} labels per trace, not {len(out)}")
    return tuple(sorted(out.items()))


def parse(pairs: Iterable[str]) -> dict[str, str]:
    """`k=v` texts as a dict (the last value of a name wins); ValueError for one without
    `=`."""
    out: dict[str, str] = {}
    for pair in pairs:
        name, eq, value = pair.partition("=")
        if not eq:
            raise ValueError(f"bad label {pair!r}: write name=value")
        out[name.strip()] = value
    return out


__all__ = ["MAX_LABELS", "PARTITIONED", "Labels", "check", "parse"]
