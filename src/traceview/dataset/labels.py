"""Labels a trace is added with (`--app A --build B --label k=v`, `add(labels=…)`, Spark's
`ingest(labels=…)`, an upload's fields): one rule, checked before anything is written, each
bad label refused in one line naming it.

Every label, wherever it goes: a name of lower-case letters, digits and `_` (at most 32,
starting with a letter); a value of 1 to 128 printable characters (no NUL or other control
character), without a path separator (`/`, `\\`), without `..` and without spaces around it.
`app` and `build` also become folders of the dataset (`app=<app>/build=<build>/`), so their
values are only letters, digits and `. _ + -`, not starting with `.` (nothing Spark or a
file system would escape), at most 64 characters. Any other label is a column (`branch`,
`device`) or a key of the `labels` JSON.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

PARTITIONED = ("app", "build")
MAX_LABELS = 16
MAX_VALUE = 128  # characters of a label's value
MAX_FOLDER = 64  # characters of an app or build (a folder name)
_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
_FOLDER = re.compile(r"[A-Za-z0-9_+-][A-Za-z0-9._+-]{0,63}")  # 64: MAX_FOLDER
RESERVED = ("date",)  # a partition the dataset sets itself

Labels = tuple[tuple[str, str], ...]


def check_one(name: str, value: str) -> None:
    """The rule for one label (ValueError in one line naming it when it breaks it)."""
    if not _NAME.fullmatch(name):
        raise ValueError(
            f"bad label name {name[:40]!r}: lower-case letters, digits and _ (at most 32), "
            "starting with a letter"
        )
    if name in RESERVED:
        raise ValueError(f"label {name!r} is set by the dataset (the trace's day)")
    if not value or len(value) > MAX_VALUE:
        raise ValueError(f"bad label {name}: its value must be 1 to {MAX_VALUE} characters")
    if "/" in value or "\\" in value or ".." in value:
        raise ValueError(f"bad label {name}: no path separator (/ or backslash) and no '..'")
    if not value.isprintable() or value != value.strip():
        raise ValueError(f"bad label {name}: no control characters, no spaces around it")
    if name in PARTITIONED and (len(value) > MAX_FOLDER or not _FOLDER.fullmatch(value)):
        raise ValueError(
            f"bad label {name}: {value!r} names a folder, so only letters, digits and "
            f". _ + - (at most {MAX_FOLDER}, not starting with .)"
        )


def check(labels: Mapping[str, str | None]) -> Labels:
    """The labels given (None values dropped), checked, sorted by name; ValueError naming
    the first bad one."""
    out: dict[str, str] = {}
    for name, value in labels.items():
        if value is None:
            continue
        check_one(name, value)
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


__all__ = ["MAX_FOLDER", "MAX_LABELS", "MAX_VALUE", "PARTITIONED", "Labels", "check", "parse"]
