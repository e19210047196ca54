"""The dmtracedump exporters beyond what Debian's binary can check: every variant gives the
regular file's report, damaged stacks still give a report, hostile names are escaped in HTML
and DOT, `-g` renders by suffix (or says `dot` is missing), and the selection options pick
the engine's numbers."""

from __future__ import annotations

import gzip
import io
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Literal

import pytest

from support.dmtracedump_run import comparable, debian, needs_debian, ours
from support.tracebuild import make_trace
from traceview.analysis.dmtracedump.numbers import legacy_profile
from traceview.analysis.session import Session
from traceview.analysis.view import View
from traceview.exporters import get
from traceview.model import Variant
from traceview.synth import generate
from traceview.writer import write

TRACE = generate(records=6000, threads=3, seed=21, balanced=True)


@pytest.fixture(scope="module")
def regular(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("dmt") / "base.trace"
    write(TRACE, path, variant="regular")
    return path


@pytest.mark.parametrize("variant", ["split", "streaming", "v2", "gzip"])
def test_every_variant_gives_the_regular_report(
    tmp_path: Path,
    regular: Path,
    capsys: pytest.CaptureFixture[str],
    variant: Variant | Literal["gzip"],
) -> None:
    if variant == "gzip":
        path = tmp_path / "v.trace.gz"
        path.write_bytes(gzip.compress(regular.read_bytes()))
    elif variant == "split":
        write(TRACE, tmp_path / "v", variant="split")
        path = tmp_path / "v.key"
    else:
        path = tmp_path / "v.trace"
        write(TRACE, path, variant=variant)
    _, base, _ = ours([regular], capsys)
    status, out, _ = ours([path], capsys)
    assert status == 0
    assert comparable(out) == comparable(base)


MISMATCHED = [
    (1, "enter", "a.A.run", 0, 0),
    (1, "enter", "a.B.step", 10, 10),
    (1, "exit", "a.A.run", 30, 30),  # B never exits: dmtracedump stops here
    (1, "enter", "a.C.next", 40, 40),
    (1, "exit", "a.C.next", 50, 50),
]


@needs_debian
def test_mismatched_stack_reports_where_debian_stops(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "mismatch.trace"
    write(make_trace(MISMATCHED), path, variant="regular")
    assert debian([path]).returncode == 1
    status, out, _ = ours([path], capsys)
    assert status == 0
    assert b"a.C.next" in out and b"Total cycles: 50" in out


HOSTILE = [
    (1, "enter", 'x.Q"uote.<script>alert(1)</script>', 0, 0),
    (1, "enter", "x.New\nLine.tab\there", 5, 5),
    (1, "exit", "x.New\nLine.tab\there", 25, 25),
    (1, "enter", "x.Bad\udcff.bytes{|}", 30, 30),
    (1, "exit", "x.Bad\udcff.bytes{|}", 60, 60),
    (1, "exit", 'x.Q"uote.<script>alert(1)</script>', 70, 70),
]


def _export(name: str, **options: Any) -> bytes | str:
    session = Session(make_trace(HOSTILE))
    view = View(session, session.query(clock="cpu"))
    exporter = get(name)
    buf: io.BytesIO | io.StringIO = io.BytesIO() if exporter.binary else io.StringIO()
    exporter.export(view, buf, exporter.options(**options))
    return buf.getvalue()


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.scripts += tag == "script"


def test_hostile_names_are_escaped_in_html() -> None:
    page = _export("dmtracedump-html")
    assert isinstance(page, bytes)
    text = page.decode("utf-8")  # valid UTF-8: the undecodable byte shows as \xff
    assert "\\xff" in text and "<script>alert" not in text
    assert "&lt;script&gt;" in text and "Q&quot;uote" in text
    tags = _Tags()
    tags.feed(text)
    assert tags.scripts == 2  # the sorter and the toggle script, nothing injected
    linked = _export("dmtracedump-html", script_url='https://x/"><b>')
    assert b'src="https://x/&quot;&gt;&lt;b&gt;sortable.js"' in linked


def test_hostile_names_are_escaped_in_dot(tmp_path: Path) -> None:
    text = _export("dot", threshold=0)
    assert isinstance(text, str)
    labels = re.findall(r'^node\d+\[label = "(.*)"\]$', text, flags=re.M)
    assert len(labels) == 4  # (toplevel) and three methods: one line each
    assert all('"' not in re.sub(r"\\.", "", lab) for lab in labels)
    assert "\\xff" in text and "\\x0a" in text and "\\{\\|\\}" in text
    if shutil.which("dot"):
        src = tmp_path / "g.dot"
        src.write_text(text)
        run = subprocess.run(["dot", "-Tsvg", str(src)], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        assert "&lt;script&gt;alert" in run.stdout and "<script>" not in run.stdout


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz not installed")
@pytest.mark.parametrize(
    ("suffix", "magic"), [(".png", b"\x89PNG"), (".svg", b"<?xml"), (".pdf", b"%PDF")]
)
def test_graph_format_by_suffix(
    tmp_path: Path, regular: Path, capsys: pytest.CaptureFixture[str], suffix: str, magic: bytes
) -> None:
    out = tmp_path / f"graph{suffix}"
    status, report, _ = ours(["-g", out, "-k", "-t", "10", regular], capsys)
    assert status == 0 and b"Total cycles" in report
    assert out.read_bytes().startswith(magic)
    dot = Path(f"{out}.dot").read_text()
    assert dot.startswith("digraph g {") and "node0 -> " in dot


def test_graph_without_dot_is_one_line_error(
    tmp_path: Path,
    regular: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)  # the module imports it on use
    status, _, err = ours(["-g", tmp_path / "g.png", regular], capsys)
    assert status == 2
    assert err.count("\n") == 1 and "dot" in err and not (tmp_path / "g.png").exists()


def test_thread_and_clock_pick_the_engine_numbers(regular: Path) -> None:
    from traceview import load

    session = Session(load(regular))
    main = session.main_thread()
    q = session.query(threads=(main,), clock="wall")
    lp = legacy_profile(session, q)
    lp.validate()
    prof = session.profile(q)
    assert lp.total * 1000 == int(prof.thread_total["wall"].sum())
    assert (lp.excl[2:] * 1000 == prof.excl["wall"]).all()
    assert (lp.incl[2:] * 1000 == prof.incl["wall"]).all()


@pytest.mark.parametrize("policy", ["dmtracedump", "traceview"])
@pytest.mark.parametrize(("seed", "style"), [(41, "dalvik"), (42, "art")])
def test_legacy_profile_invariants_on_unbalanced_traces(seed: int, style: str, policy: str) -> None:
    trace = generate(records=20_000, threads=4, seed=seed, style=style)
    session = Session(trace)
    for q in (session.query(clock="cpu"), session.query(clock="wall", threads=(0,))):
        legacy_profile(session, q, policy).validate()
