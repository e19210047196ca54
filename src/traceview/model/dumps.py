"""What an ANR report or a bugreport holds for traceview: one `ProcessDump` per
`LongRunningMethods:` block (ART's base64 low-overhead dump of one process), as found.

Readers fill it in (`readers/lowoverhead/anr.py`); `Header.processes` lists them and
`Header.process` says which one a trace was read from.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ProcessDump"]


@dataclass(frozen=True)
class ProcessDump:
    """One process's dump in a report.

    `name` is the process name from the dump's `Cmd line:` (None when absent), `pid` the pid
    from its `----- pid N at DATE -----` line and `at` that DATE (None when absent). `member`
    is the bugreport zip member holding it (None in a plain text report) and `line` the
    1-based line of `LongRunningMethods:` in it; `size` is the number of bytes the base64
    decodes to. `also_in` names other places holding the same dump (a bugreport repeats the
    last ANR's traces in its main text).
    """

    name: str | None
    pid: int | None
    at: str | None
    member: str | None
    line: int
    size: int
    also_in: tuple[str, ...] = ()

    def label(self) -> str:
        """`name (pid N)`, as lists and errors show it."""
        name = self.name if self.name else "(unnamed)"
        return f"{name} (pid {self.pid})" if self.pid is not None else name

    def where(self) -> str:
        """`member:line`, or `line N` in a plain text report."""
        return f"{self.member}:{self.line}" if self.member else f"line {self.line}"
