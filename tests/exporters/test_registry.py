"""The exporter contract: the registry guesses a format and lists them without importing any
format module; every entry's module declares the name, suffixes, binary and subject kind the
table gives; every format's options are a small frozen type of only the fields it reads."""

from __future__ import annotations

import dataclasses
import inspect
import io
import os
import subprocess
import sys
from importlib import import_module
from pathlib import Path
from typing import Any

import pytest

from traceview.analysis.compare import compare, summarise_run
from traceview.analysis.diff import Thresholds
from traceview.analysis.session import Session
from traceview.analysis.view import View
from traceview.exporters import REGISTRY, SUBJECTS, Pair, get, names
from traceview.synth import generate

GUESS = """
import contextlib, io, sys
from traceview.exporters import REGISTRY, for_path
from traceview.cli import main
guessed = [f.name for f in map(for_path, ["x.pb", "x.pb.gz", "a.speedscope.json", "a.chrome.json",
                                          "t.folded.txt", "o.parquet", "r.html", "x.unknown"]) if f]
with contextlib.redirect_stdout(io.StringIO()):
    assert main(["export", "--help"]) == 0
modules = {entry[0] for entry in REGISTRY.values()}
print(" ".join(guessed))
print(" ".join(sorted(modules & set(sys.modules))))
"""


def test_guessing_and_listing_import_no_format_module() -> None:
    src = str(Path(__file__).resolve().parents[2] / "src")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")])),
    }
    run = subprocess.run(
        [sys.executable, "-c", GUESS], capture_output=True, text=True, env=env, timeout=120
    )
    assert run.returncode == 0, run.stderr
    guessed, imported = [*run.stdout.splitlines(), "", ""][:2]
    assert guessed.split() == [
        "pprof",
        "pprof",
        "speedscope",
        "chrome",
        "folded",
        "parquet",
        "report",
    ]
    assert imported == ""


@pytest.mark.parametrize("name", list(REGISTRY))
def test_each_module_declares_its_entry(name: str) -> None:
    path, suffixes, binary, subject, description = REGISTRY[name]
    module = import_module(path)
    assert name == module.NAME
    assert tuple(module.SUFFIXES) == suffixes
    assert module.BINARY is binary
    assert subject == module.SUBJECT and subject in SUBJECTS
    assert description and all(s.startswith(".") and s == s.lower() for s in suffixes)
    assert list(inspect.signature(module.export).parameters)[1:] == ["out", "options"]
    options = module.Options
    assert options.__module__ == path, "each format declares its own options"
    assert dataclasses.is_dataclass(options) and module.Options.__dataclass_params__.frozen
    assert get(name).flags() == tuple(f.name for f in dataclasses.fields(options))


def test_names_by_subject_cover_the_table() -> None:
    assert sorted(n for kind in SUBJECTS for n in names(kind)) == sorted(REGISTRY)
    assert names("pair") == ("dmtracedump-diff", "dmtracedump-diff-html")
    assert names("directory") == ("parquet",)


def test_a_format_refuses_options_it_does_not_take() -> None:
    speedscope = get("speedscope")
    with pytest.raises(TypeError, match="merge_threads"):
        speedscope.options(merge_threads=True)
    with pytest.raises(TypeError, match="its own options"):
        speedscope.export(None, io.StringIO(), get("folded").options())
    assert get("folded").options(merge_threads=True).merge_threads is True


class Reads:
    """Options as a format sees them, noting each field it reads."""

    def __init__(self, options: Any) -> None:
        self.options = options
        self.read: set[str] = set()

    def __getattr__(self, name: str) -> Any:
        self.read.add(name)
        return getattr(self.options, name)


@pytest.fixture(scope="module")
def view() -> View:
    session = Session(generate(records=3000, threads=2, seed=11))
    return View(session, session.query())


def subject_of(kind: str, view: View) -> Any:
    if kind == "pair":
        return Pair(view, view)
    if kind == "runs":
        run = summarise_run(view)  # a Comparison: every `runs` format takes one
        return compare([run], [run], Thresholds())
    return view


@pytest.mark.parametrize("name", list(REGISTRY))
def test_options_hold_only_what_the_format_reads(name: str, view: View, tmp_path: Path) -> None:
    fmt = get(name)
    if fmt.subject == "directory":
        pytest.importorskip("pyarrow")
        out: Any = tmp_path / "out"
    else:
        out = io.BytesIO() if fmt.binary else io.StringIO()
    reads = Reads(fmt.options_type())
    fmt.load().export(subject_of(fmt.subject, view), out, reads)
    assert reads.read == set(fmt.flags()), f"{name} declares {fmt.flags()}, reads {reads.read}"
