"""Names in dmtracedump's reports (issue 18): the key line's fields split as dmtracedump splits
them, so lines with an empty or a missing field print as it prints them (`…V<TAB>`, not
`…V<TAB>(null)`); and control characters in names escaped (a clear-screen or window-title
sequence never reaches the terminal) while plain names stay byte for byte Debian's."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import readers_bytes as rb
from support.dmtracedump_run import accepted, debian, needs_debian, ours

# every shape of method line: 4 fields, 5 with an empty or a named file, 6 with a line number
# (or not a number), 7, 3, `(null)`, 6 with both last fields empty
LINES = [
    "0x4\tcom.a.F4\tm\t()V",
    "0x8\tcom.a.F5e\tm\t()V\t",
    "0xc\tcom.a.F5\tm\t()V\tF.java",
    "0x10\tcom.a.F6\tm\t()V\tF.java\t12",
    "0x14\tcom.a.F6x\tm\t()V\tF.java\tabc",
    "0x18\tcom.a.F7\tm\t()V\tF.java\t12\tzz",
    "0x1c\tcom.a.F3\tm",
    "0x20\tcom.a.F5n\tm\t()V\t(null)",
    "0x24\tcom.a.F6e\tm\t()V\t\t",
    "0x28\tcom.a.NoName\t\t()V\tF.java",
]
EVIL = "0x4\tcom.a.Evil\x1b[2J\tm\x1b]0;pwned\x07\t()V\tF.java"
PLAIN = ["0x8\tcom.a.Plain\tm\t()V\tF.java", "0xc\tcom.a.Amp<&>\tm\t()V\t"]


def _nested_calls(count: int) -> list[tuple[int, ...]]:
    """Each of `count` methods (ids 4, 8, ...) called in turn, method i for i + 1 µs."""
    rows: list[tuple[int, ...]] = []
    t = 0
    for i in range(count):
        mid = 4 * (i + 1)
        rows += [(1, mid, 0, t, t), (1, mid, 1, t + 1 + i, t + 1 + i)]
        t += 2 + i
    return rows


def _file(tmp_path: Path, name: str, lines: list[str], vm: str, thread: str = "main") -> Path:
    options = ("data-file-overflow=false", f"vm={vm}", "pid=42")
    data = rb.key(methods=lines, options=options, threads=[(1, thread)])
    path = tmp_path / name
    path.write_bytes(data + rb.header(3) + rb.records(_nested_calls(len(lines))))
    return path


def _body(page: bytes) -> bytes:
    return page.split(b"</head>", 1)[1]


@pytest.mark.dmtracedump
@needs_debian
@pytest.mark.parametrize("vm", ["art", "dalvik"])
def test_key_lines_print_as_dmtracedump_splits_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], vm: str
) -> None:
    path = _file(tmp_path, f"{vm}.trace", LINES, vm)
    for flags in ([], ["-o"], ["-h"]):
        theirs = debian([*flags, path])
        assert accepted(theirs)
        status, out, _ = ours([*flags, path], capsys)
        assert status == 0
        if flags == ["-h"]:
            assert _body(out) == _body(theirs.stdout)
        else:
            assert out == theirs.stdout, flags


def _unescaped(out: bytes) -> bytes:
    return out.replace(b"\\x1b", b"\x1b").replace(b"\\x07", b"\x07")


@pytest.mark.dmtracedump
@needs_debian
def test_control_characters_escaped_only_where_present(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The text report and `-o` are Debian's bytes with each control character of a name
    written `\\xNN`, and nothing else changed (the plain names and the tabs stay)."""
    path = _file(tmp_path, "evil.trace", [EVIL, *PLAIN], "art", thread="main\x1b[31m")
    for flags in ([], ["-o"]):
        theirs = debian([*flags, path])
        assert accepted(theirs) and b"\x1b" in theirs.stdout
        status, out, _ = ours([*flags, path], capsys)
        assert status == 0
        assert b"\x1b" not in out and b"\x07" not in out
        assert b"Evil\\x1b[2J.m\\x1b]0;pwned\\x07 ()V\tF.java" in out
        assert _unescaped(out) == theirs.stdout, flags


@pytest.mark.parametrize("flags", [["-h"], ["-d"], ["-h", "-d"]])
def test_html_and_diff_escape_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str]
) -> None:
    path = _file(tmp_path, "evil.trace", [EVIL, *PLAIN], "art")
    args: list[str | Path] = [*flags, path] if flags[-1] != "-d" else [*flags, path, path]
    status, out, _ = ours(args, capsys)
    assert status == 0
    assert b"\x1b" not in out and b"\x07" not in out
    assert b"Evil\\x1b[2J" in out
    assert b"Amp&lt;&amp;&gt;" in out and b"Amp<&>" not in out


def test_terminal_bytes_keeps_plain_names() -> None:
    from traceview.model import terminal_bytes

    for raw in (b"com.a.B", b"()V\tF.java", "\u00e9\u4e2d".encode(), b"bad\xff\xfe"):
        assert terminal_bytes(raw) is raw
    assert terminal_bytes(b"a\x1bb\tc\rd") == b"a\\x1bb\tc\\x0dd"
    assert terminal_bytes(b"c1\xc2\x9b") == b"c1\\x9b"  # U+009B, CSI to some terminals
    assert terminal_bytes(b"raw\x9b") == b"raw\\x9b"  # the same as a lone byte
