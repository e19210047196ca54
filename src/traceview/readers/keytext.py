"""Key / summary text of V1 traces (`*version … *threads … *methods … *end`) parsed from bytes.

Shared by the regular, split and streaming readers (and the streaming method packets, whose
text is one `*methods` line); the V2 reader reads its summary and names with it too. Offsets
stay byte-exact: the text is split on `\\n` in bytes and each name is decoded on its own,
losslessly (UTF-8, Modified UTF-8, then surrogateescape).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from traceview.model import Diagnostic

_END = re.compile(rb"(?m)^\*end[ \t]*\r?(?:\n|$)")


@dataclass
class MethodLine:
    """One method of the key: id as written plus the five name fields, and the line after the
    id's tab as written (`rest`, None without a tab)."""

    id: int
    class_name: str
    name: str
    signature: str
    source_file: str
    line: int
    rest: str | None = None


@dataclass
class KeyText:
    """A parsed key/summary section. Thread and method ids are unique (last definition wins)."""

    version: int | None = None
    options: dict[str, str] = field(default_factory=dict)
    threads: dict[int, str] = field(default_factory=dict)
    methods: dict[int, MethodLine] = field(default_factory=dict)
    end: int = 0  # byte offset just past the `*end` line (the data section starts here)


def decode_name(raw: bytes) -> tuple[str, int]:
    """(text, kind): UTF-8 (0), else Modified UTF-8 (1: C0 80, surrogate pairs), else
    surrogateescape (2). Lossless; the V2 reader's thread and method infos use it too."""
    try:
        return raw.decode("utf-8"), 0
    except UnicodeDecodeError:
        pass
    try:
        text = raw.replace(b"\xc0\x80", b"\x00").decode("utf-8", "surrogatepass")
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le"), 1
    except UnicodeError:
        return raw.decode("utf-8", "surrogateescape"), 2


class NameDecoder:
    """Decodes name bytes losslessly and counts the names that were not valid UTF-8."""

    def __init__(self) -> None:
        self.mutf8 = 0
        self.escaped = 0

    def decode(self, raw: bytes) -> str:
        """`decode_name`, counting the Modified UTF-8 and escaped names."""
        text, kind = decode_name(raw)
        if kind == 1:
            self.mutf8 += 1
        elif kind == 2:
            self.escaped += 1
        return text

    def diagnostics(self, where: str) -> list[Diagnostic]:
        """One diagnostic per kind of non-UTF-8 name seen."""
        out = []
        if self.mutf8:
            out.append(
                Diagnostic(
                    "modified-utf8",
                    f"{self.mutf8} name(s) in the {where} were Modified UTF-8 (Java's encoding "
                    "of supplementary characters); decoded as such",
                    count=self.mutf8,
                )
            )
        if self.escaped:
            out.append(
                Diagnostic(
                    "bad-name-encoding",
                    f"{self.escaped} name(s) in the {where} are not valid UTF-8; the bad bytes "
                    "are kept as surrogate escapes (U+DC80-U+DCFF)",
                    count=self.escaped,
                )
            )
        return out


def find_key_end(data: bytes | memoryview, start: int = 0) -> int | None:
    """Byte offset just past the `*end` line of a key starting at `start`, or None."""
    m = _END.search(bytes(data) if isinstance(data, memoryview) else data, start)
    return m.end() if m else None


def parse_id(text: str) -> int | None:
    """A method id as ART/Dalvik print it: hex with or without 0x, `0`, upper case, `(nil)`;
    ASCII hex digits only and below 2**64 (None otherwise)."""
    text = text.strip()
    if text == "(nil)":
        return 0
    if text[:2] in ("0x", "0X"):
        text = text[2:]
    digits = text.lstrip("0")
    if not text or len(digits) > 16 or not _is_ascii_digits(text, _HEX):
        return None
    return int(text, 16)


def parse_method_line(line: str) -> MethodLine | None:
    """One decoded `*methods` line (6-field Dalvik or 5-field ART, tab separated) or None."""
    line = line.rstrip("\r\n")
    parts = line.split("\t")
    if len(parts) == 1 and " " in line:
        parts = line.split()  # createtesttrace: separators became spaces
    ident = parse_id(parts[0])
    if ident is None:
        return None
    parts = parts[1:]
    n = len(parts)
    cls = parts[0] if n else ""
    name = sig = source = ""
    line_no = -1
    if n == 3 and not parts[2].startswith("(") and is_int(parts[2]):
        source, line_no = parts[1], int32(parts[2])  # traceview's (class, file, line) form
    else:
        name = parts[1] if n > 1 else ""
        sig = parts[2] if n > 2 else ""
        source = parts[3] if n > 3 else ""
        if n > 4 and is_int(parts[4]):
            line_no = int32(parts[4])
    if source == "(null)":
        source = ""
    rest = line.split("\t", 1)[1] if "\t" in line else None
    return MethodLine(ident, cls, name, sig, source, line_no, rest)


def _lines(raw: bytes, names: NameDecoder) -> list[str]:
    """The lines of `raw`, decoded whole when it is UTF-8 (fast), else line by line."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return [names.decode(line) for line in raw.split(b"\n")]
    return text.split("\n")


def parse_key(data: bytes, diags: list[Diagnostic], *, where: str = "key section") -> KeyText:
    """Parse the key text at the start of `data` up to its `*end` line (or to its end)."""
    start = 0
    if data.startswith(b"\xef\xbb\xbf"):
        diags.append(Diagnostic("bom", f"the {where} starts with a UTF-8 BOM; skipped", 0))
        start = 3
    end = find_key_end(data, start)
    stop = end if end is not None else len(data)
    key = KeyText(end=stop)
    raw = data[start:stop]
    names = NameDecoder()
    lines = _lines(raw, names)
    if lines and lines[-1] == "":
        lines.pop()
    crlf = raw.count(b"\r\n")
    if crlf:
        diags.append(
            Diagnostic(
                "crlf",
                f"{crlf} line(s) of the {where} end in CR LF; read as plain line ends",
                offset=start,
                count=crlf,
            )
        )
    section = ""
    bad: list[str] = []
    dup_threads = dup_methods = 0
    expect_version = False
    for ln in lines:
        ln = ln.rstrip("\r")
        if ln.startswith("*"):
            word = ln[1:].strip().lower()
            if word in ("version", "threads", "methods", "end"):
                section = word
                expect_version = section == "version"
                continue
        if not ln.strip():
            continue
        if expect_version:
            expect_version = False
            number = decimal(ln, limit=0xFFFF)
            if number is not None and number >= 0:
                key.version = number
                continue
        if section == "methods":
            method = parse_method_line(ln)
            if method is None:
                bad.append(ln)
            else:
                if method.id in key.methods:
                    dup_methods += 1  # last wins; the row stays where the id first appeared
                key.methods[method.id] = method
        elif section == "threads":
            tid_text, tab, name = ln.partition("\t")
            if not tab:
                tid_text, _, name = ln.strip().partition(" ")
            tid = decimal(tid_text)
            if tid is not None and tid >= 0 and not tid_text.strip().startswith("-"):
                if tid in key.threads:
                    dup_threads += 1
                key.threads[tid] = name
            else:
                bad.append(ln)
        elif section == "version" and "=" in ln:
            k, _, v = ln.partition("=")
            key.options[k.strip()] = v.strip()
        else:
            bad.append(ln)
    if bad:
        at = raw.find(bad[0].encode("utf-8", "surrogateescape"))
        diags.append(
            Diagnostic(
                "bad-key-line",
                f"{len(bad)} line(s) of the {where} could not be parsed and were skipped "
                f"(first: {bad[0][:60]!r})",
                offset=start + at if at >= 0 else None,
                count=len(bad),
            )
        )
    for what, n in (("thread", dup_threads), ("method", dup_methods)):
        if n:
            diags.append(
                Diagnostic(
                    f"duplicate-{what}",
                    f"{n} {what} id(s) are defined more than once in the {where}; "
                    "the last definition wins (as in traceview)",
                    count=n,
                )
            )
    diags.extend(names.diagnostics(where))
    return key


_DEC = frozenset("0123456789")
_HEX = frozenset("0123456789abcdefABCDEF")
MAX_DIGITS = 20  # 2**64 has 20 decimal digits: anything longer is not a number of a trace
INT64_MAX = 2**63 - 1


def _is_ascii_digits(text: str, alphabet: frozenset[str]) -> bool:
    """Only characters of `alphabet` (str.isdigit also accepts '²', '٣', ...)."""
    return bool(text) and all(c in alphabet for c in text)


def decimal(text: str | None, limit: int = INT64_MAX) -> int | None:
    """A decimal integer (ASCII digits, optional '-', blanks around) of at most 20 digits
    whose magnitude is <= `limit`; None for anything else."""
    if text is None:
        return None
    t = text.strip()
    body = t[1:] if t.startswith("-") else t
    if len(body) > MAX_DIGITS or not _is_ascii_digits(body, _DEC):
        return None
    value = int(t)
    return value if abs(value) <= limit else None


def is_int(text: str) -> bool:
    """A (possibly negative) decimal integer of at most 20 ASCII digits, blanks allowed."""
    return decimal(text, limit=10**MAX_DIGITS) is not None


def int32(text: str) -> int:
    """The integer `text` (which `is_int` accepted), clamped to int32 (line numbers)."""
    value = decimal(text, limit=10**MAX_DIGITS) or 0
    return max(-(2**31), min(2**31 - 1, value))
