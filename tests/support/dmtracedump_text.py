"""A small parser for Debian dmtracedump's text report (format.md d.3), for the engine's
agreement tests: per method, exclusive and inclusive µs and calls n+r, keyed by the printed
`class.method signature` (dmtracedump glues a 5-field key line's source file onto the
signature after a tab; that part is cut)."""

from __future__ import annotations

import re
from dataclasses import dataclass

EXCL = re.compile(r"^\s*(\d+)\s+[\d.]+\s+[\d.]+\s+\[(\d+)\] (.*)$")
INCL = re.compile(r"^\[(\d+)\]\s+[\d.]+%\s+(\d+)\+(\d+)\s+(\d+) (.*)$")


@dataclass
class Row:
    name: str
    excl: int = 0
    incl: int = 0
    calls: int = 0
    recursive: int = 0


def parse(text: str) -> tuple[int, dict[int, Row]]:
    """(Total cycles, rows by dmtracedump index)."""
    total = 0
    rows: dict[int, Row] = {}
    section = 0
    for line in text.splitlines():
        if line.startswith("Total cycles:"):
            total = int(line.split(":")[1])
        if line.startswith("====="):
            section += 1
            continue
        if section == 1 and (m := EXCL.match(line)):
            idx = int(m.group(2))
            rows.setdefault(idx, Row(_name(m.group(3)))).excl = int(m.group(1))
        elif section == 2 and (m := INCL.match(line)):
            idx = int(m.group(1))
            row = rows.setdefault(idx, Row(_name(m.group(5))))
            row.calls, row.recursive, row.incl = (int(m.group(k)) for k in (2, 3, 4))
    return total, rows


def _name(text: str) -> str:
    return text.split("\t", 1)[0]
