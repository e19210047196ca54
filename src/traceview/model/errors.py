"""The package's small exception hierarchy and the diagnostic record for repaired damage.

Readers raise these; the CLI turns them into one line and exit status 2. Damage that can be
salvaged is never an exception: it becomes a `Diagnostic` on the trace.
"""

from __future__ import annotations

from dataclasses import dataclass


class TraceError(Exception):
    """Base class of every error the package raises on purpose."""


class TraceFormatError(TraceError):
    """The bytes are not a readable method trace: nothing usable could be salvaged.

    `offset` is the byte offset where reading failed (None when it is not about one byte),
    `expected` and `found` say what the reader wanted and what was there.
    """

    def __init__(
        self,
        message: str,
        *,
        offset: int | None = None,
        expected: str | None = None,
        found: str | None = None,
        path: str | None = None,
    ) -> None:
        self.message = message
        self.offset = offset
        self.expected = expected
        self.found = found
        self.path = path
        super().__init__(self.line())

    def line(self) -> str:
        """The line the CLI prints: `path: at byte N: message (expected X, found Y)`."""
        parts = []
        if self.path:
            parts.append(self.path)
        if self.offset is not None:
            parts.append(f"at byte {self.offset}")
        text = self.message
        detail = []
        if self.expected is not None:
            detail.append(f"expected {self.expected}")
        if self.found is not None:
            detail.append(f"found {self.found}")
        if detail:
            text += f" ({', '.join(detail)})"
        parts.append(text)
        return ": ".join(parts)

    def with_path(self, path: str) -> TraceFormatError:
        """Return the same error naming `path` (readers may not know the file name)."""
        self.path = path
        self.args = (self.line(),)
        return self


class NotATraceError(TraceFormatError):
    """The bytes are some other, recognised format (simpleperf, perfetto, systrace, ...)."""


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One repair or oddity found while reading or analysing a trace.

    `code` is a stable kebab-case identifier (e.g. `truncated-record`, `unknown-thread`),
    `message` a sentence for people, `offset` the byte offset it concerns (if any) and
    `count` how many records/items it concerns (if it summarises several).
    """

    code: str
    message: str
    offset: int | None = None
    count: int | None = None

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict with the keys code, message, offset, count."""
        return {
            "code": self.code,
            "message": self.message,
            "offset": self.offset,
            "count": self.count,
        }
