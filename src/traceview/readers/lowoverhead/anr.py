"""Android 16 low-overhead dumps inside ANR reports (format.md §1.8): a `/data/anr/anr_*` text
file, or a bugreport zip holding such files (and its main text repeating the last ANR).

ART's SIGQUIT dump prints, per process, `----- pid N at DATE -----`, `Cmd line: NAME`, ...
and, while long-running method tracing is on (system_server starts it at half the ANR
timeout), `LongRunningMethods: <base64 of the binary dump>`. Every such line is found
(`find_dumps`), named by the process around it, decoded (a cut or damaged base64 keeps what
decodes, said in a diagnostic) and offered: `read` reads one (`process` = a name or pid; by
default the first, which is the process that hung in the newest ANR), and the header lists
them all (`Header.processes`).
"""

from __future__ import annotations

import binascii
import dataclasses
import io
import re
import zipfile
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import BinaryIO

from traceview.model import Diagnostic, ProcessDump, Trace, TraceFormatError
from traceview.readers.lowoverhead import read_dump
from traceview.readers.source import Source

__all__ = ["MARKER", "Found", "find_dumps", "read", "sniff"]

MARKER = b"LongRunningMethods: "
ZIP = b"PK\x03\x04"
_PID = re.compile(rb"----- pid (\d{1,10}) at ([^\n]{0,64}?) -----")
_CMD = re.compile(rb"Cmd line: ([^\n]{0,512})")
_CONTEXT = 1 << 16  # how far before the marker its process's lines are looked for
_BASE64 = re.compile(rb"[A-Za-z0-9+/]*=*")


@dataclass
class Found:
    """One dump found: where, whose, its decoded bytes and what went wrong decoding it."""

    dump: ProcessDump
    payload: bytes
    notes: list[Diagnostic] = field(default_factory=list)


def sniff(head: bytes) -> bool:
    """A zip archive, or text that looks like an ANR report or a bugreport's main text."""
    if head.startswith(ZIP):
        return True
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    looks = text.startswith((b"Subject:", b"----- pid ", b"== dumpstate:", b"====="))
    return MARKER in head or (looks and (b"----- pid " in head or b"dumpstate" in head[:4096]))


def find_dumps(text: bytes, member: str | None = None) -> list[Found]:
    """Every `LongRunningMethods:` line of one text, in order."""
    out = []
    at = text.find(MARKER)
    while at >= 0:
        line_start = text.rfind(b"\n", 0, at) + 1
        end = text.find(b"\n", at)
        end = len(text) if end < 0 else end
        if text[line_start:at].strip() == b"":  # the marker opens its line
            out.append(_found(text, at, end, member))
        at = text.find(MARKER, end)
    return out


def _found(text: bytes, at: int, end: int, member: str | None) -> Found:
    window = text[max(0, at - _CONTEXT) : at]
    pids = list(_PID.finditer(window))
    pid = date = name = None
    if pids:
        pid, date = int(pids[-1].group(1)), pids[-1].group(2).decode("utf-8", "surrogateescape")
        cmd = _CMD.search(window, pids[-1].end())
        if cmd:
            name = cmd.group(1).strip().decode("utf-8", "surrogateescape") or None
    payload, notes = _decode(text[at + len(MARKER) : end].strip(), at)
    line = text.count(b"\n", 0, at) + 1
    return Found(ProcessDump(name, pid, date, member, line, len(payload)), payload, notes)


def _decode(b64: bytes, at: int) -> tuple[bytes, list[Diagnostic]]:
    """The bytes of a base64 run; a cut or damaged one keeps its valid prefix, said."""
    valid = _BASE64.match(b64)
    good = valid.group(0) if valid else b""
    notes = []
    if len(good) < len(b64):
        notes.append(
            Diagnostic(
                "bad-base64",
                f"the LongRunningMethods base64 has a character that is not base64 after "
                f"{len(good)} characters; the dump was read up to there",
                offset=at + len(MARKER) + len(good),
            )
        )
    whole = len(good) // 4 * 4
    if whole < len(good) and not notes:
        notes.append(
            Diagnostic(
                "truncated-base64",
                f"the LongRunningMethods base64 is cut ({len(good)} characters, not a multiple "
                "of 4); the dump was read up to there",
                offset=at + len(MARKER) + whole,
            )
        )
    try:
        payload = binascii.a2b_base64(good[:whole])
    except binascii.Error:  # padding inside the run: keep what precedes it
        first_pad = good.find(b"=")
        payload = binascii.a2b_base64(good[: first_pad // 4 * 4])
    return payload, notes


def read(
    src: Source | bytes | memoryview,
    *,
    source: str | None = None,
    process: str | int | None = None,
    max_size: int = 4 << 30,
    clocks: Collection[str] | None = None,
) -> Trace:
    """Read one process's dump from an ANR report or a bugreport zip (`clocks`: the readers'
    contract; `load` drops the columns not wanted)."""
    if isinstance(src, Source) and src.data is None and src.file is not None:
        src.file.seek(0)
        if src.file.read(4) == ZIP:  # a zip on disk: read through zipfile, not into memory
            src.file.seek(0)
            return _chosen(*_from_zip(src.file, max_size), source, process)
    data = src.whole() if isinstance(src, Source) else bytes(src)
    if data.startswith(ZIP):
        return _chosen(*_from_zip(io.BytesIO(data), max_size), source, process)
    return _chosen(find_dumps(data), 0, source, process)


def _chosen(
    found: list[Found], searched: int, source: str | None, process: str | int | None
) -> Trace:
    """The chosen dump read, with the list of all."""
    if not found:
        where = "an ANR report"
        if searched:
            where = f"a zip archive ({max(searched, 0)} ANR or bugreport text(s) in it)"
        raise TraceFormatError(
            f"{where} with no 'LongRunningMethods:' line: long-running method tracing was not "
            "on when the traces were dumped (ART in Android 16 and later writes one per "
            "process that was tracing)",
            expected="'LongRunningMethods: <base64>'",
            found="none",
        )
    dumps = tuple(f.dump for f in found)
    index = _pick(dumps, process)
    chosen = found[index]
    trace = read_dump(chosen.payload, source=source)
    trace.diagnostics[:0] = chosen.notes
    if len(dumps) > 1:
        others = ", ".join(d.label() for i, d in enumerate(dumps) if i != index)
        trace.diagnostics.insert(
            0,
            Diagnostic(
                "other-processes",
                f"read {dumps[index].label()} from {dumps[index].where()}; the report holds "
                f"{len(dumps) - 1} more dump(s): {others} (pick one with --process NAME|PID)",
                count=len(dumps) - 1,
            ),
        )
    header = trace.header
    trace.header = dataclasses.replace(header, pid=dumps[index].pid, processes=dumps, process=index)
    return trace


def _pick(dumps: tuple[ProcessDump, ...], process: str | int | None) -> int:
    """The index of the dump `process` names (a pid, `#N` for the N-th dump listed, or a name:
    exact, else a unique part)."""
    if process is None:
        return 0
    text = str(process)
    if text.startswith("#") and text[1:].isdigit():
        hits = [int(text[1:])] if int(text[1:]) < len(dumps) else []
    elif text.isdigit():
        hits = [i for i, d in enumerate(dumps) if d.pid == int(text)]
    else:
        hits = [i for i, d in enumerate(dumps) if d.name == text]
        part = [i for i, d in enumerate(dumps) if d.name and text in d.name]
        hits = hits or (part if len({dumps[i].name for i in part}) == 1 else [])
    if not hits:
        listed = ", ".join(d.label() for d in dumps)
        raise TraceFormatError(
            f"no process {text!r} among the report's dumps: {listed}",
            expected="a process name or pid",
            found=text,
        )
    return hits[0]


def _members(names: list[str]) -> list[str]:
    """The members that may hold ANR traces: ANR files (newest first), then bugreport texts."""
    anr = sorted((n for n in names if n.rsplit("/", 1)[-1].startswith("anr_")), reverse=True)
    main = sorted(
        n for n in names if n.rsplit("/", 1)[-1].startswith("bugreport") and n.endswith(".txt")
    )
    return anr + main


def _from_zip(file: BinaryIO, max_size: int) -> tuple[list[Found], int]:
    """Every dump of a zip's ANR and bugreport texts, each dump once (a bugreport repeats the
    last ANR's traces: the copy is named in `also_in`), and how many texts were searched (-1
    for none). Inflates at most `max_size` bytes."""
    try:
        archive = zipfile.ZipFile(file)
        names = _members([i.filename for i in archive.infolist() if not i.is_dir()])
    except (zipfile.BadZipFile, OSError, ValueError) as err:
        raise TraceFormatError(f"a damaged zip archive ({err})", offset=0) from None
    out: list[Found] = []
    seen: dict[tuple[int | None, bytes], int] = {}
    budget = max_size
    for name in names:
        try:
            with archive.open(name) as member:
                text = member.read(budget + 1)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError):
            continue  # a damaged member: the others may still hold dumps
        budget -= len(text)
        if budget < 0:
            raise TraceFormatError(f"the zip's texts inflate past {max_size} bytes (max_size)")
        for found in find_dumps(text, name):
            key = (found.dump.pid, found.payload)
            if key in seen:
                first = out[seen[key]]
                also = (*first.dump.also_in, found.dump.where())
                first.dump = dataclasses.replace(first.dump, also_in=also)
                continue
            seen[key] = len(out)
            out.append(found)
    return out, len(names) or -1
