"""Every command on every file of ../shared/corpus (issue 18: `stats` ended in KeyError on
every trace without a wall clock while 1,281 tests passed): each ends with exit status 0, or
with the documented one-line refusal and status 2 — the file's own (tests/support/
corpus_table.py says which files are refused and why) or a clock the trace does not record —
never a traceback.

Commands run in-process through `traceview.cli.main(argv)`; each loaded trace is kept for the
next commands of the same file (loading is deterministic and a `Trace` is immutable), every
command still starts its own analysis session. `stats` tables are cut to 40 rows and reports
to a 1 MB tile budget: the same code, less output. The two-trace commands (`diff` with its
differential flame graph, `dmtracedump -d` text and page, the compare page of `report --vs`)
compare the file with itself; the compare page, the costliest, only on files of at most
`PAIR_RECORDS` records. `compare` (a server) is left to tests/viewer."""

from __future__ import annotations

import contextlib
import functools
import io
from pathlib import Path
from typing import Any

import pytest

import traceview.readers
from support.corpus import CORPUS, corpus_files
from support.corpus_table import EXPECTED, Reads, refused
from traceview.cli import main

FORMATS = ("folded", "svg", "chrome", "speedscope", "pprof", "parquet")
WRITES = {  # command -> the file it writes (under the test's folder)
    **{f"export-{f}": f"out.{f}" for f in FORMATS},
    "report": "report.html",
    "diff": "diff.svg",
    "compare-report": "compare.html",
}
PAIR_RECORDS = 50_000  # the compare page only on files this small (its cost is two reports)


def argv(command: str, trace: str, out: Path) -> list[str]:
    """The command line of `command` on `trace`."""
    table = {
        "info": ["info", trace],
        "info-json": ["info", "--json", trace],
        "stats-cpu": ["stats", "--limit", "40", "--clock", "cpu", trace],
        "stats-wall": ["stats", "--limit", "40", "--clock", "wall", trace],
        "stats-json-cpu": ["stats", "--json", "--clock", "cpu", trace],
        "stats-json-wall": ["stats", "--json", "--clock", "wall", trace],
        "tree": ["tree", trace],
        "dump": ["-r", trace],
        "dmtracedump": ["dmtracedump", trace],
        "dmtracedump-o": ["dmtracedump", "-o", trace],
        "dmtracedump-h": ["dmtracedump", "-h", trace],
        "report": ["report", "--budget-mb", "1", trace, "-o", str(out / "report.html")],
        "sql": ["sql", trace, "SELECT count(*), sum(excl_wall_ns) FROM calls"],
        "anr": ["anr", "--limit", "20", trace],
        "diff": ["diff", trace, "--vs", trace, "--svg", str(out / "diff.svg")],
        "dmtracedump-d": ["dmtracedump", "-d", trace, trace],
        "dmtracedump-d-h": ["dmtracedump", "-h", "-d", trace, trace],
        "compare-report": [
            *("report", "--budget-mb", "1", trace, "--vs", trace),
            *("-o", str(out / "compare.html")),
        ],
    }
    for f in FORMATS:
        table[f"export-{f}"] = ["export", trace, "-f", f, "-o", str(out / f"out.{f}")]
    return table[command]


COMMANDS = [
    "info", "info-json", "stats-cpu", "stats-wall", "stats-json-cpu", "stats-json-wall",
    "tree", "anr", "dump", "dmtracedump", "dmtracedump-o", "dmtracedump-h", "dmtracedump-d",
    "dmtracedump-d-h", *(f"export-{f}" for f in FORMATS), "report", "sql", "diff",
    "compare-report",
]  # fmt: skip


def applies(rel: str, command: str) -> bool:
    """Whether `command` runs on `rel` here (the compare page only on small files)."""
    entry = EXPECTED.get(rel)
    big = isinstance(entry, Reads) and entry.records > PAIR_RECORDS
    return not (command == "compare-report" and big)


CASES = [
    (rel, c)
    for rel in (p.relative_to(CORPUS).as_posix() for p in corpus_files())
    for c in COMMANDS
    if applies(rel, c)
]


@functools.lru_cache(maxsize=2)
def _loaded(path: str, **how: Any) -> Any:
    return _LOAD(path, **how)


_LOAD = traceview.readers.load


@pytest.fixture(autouse=True)
def reuse_loads(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def load(source: Any, **how: Any) -> Any:
        if isinstance(source, (str, Path)):
            return _loaded(str(source), **how)
        return _LOAD(source, **how)

    monkeypatch.setattr(traceview.readers, "load", load)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # sql's Parquet cache


def expected_refusal(rel: str, command: str) -> str | None:
    """The words of the one-line refusal `command` must end with on `rel`, or None (exit 0)."""
    words = refused(rel)
    if words is not None:
        return words
    entry = EXPECTED.get(rel)
    clocks = {"dual": ("cpu", "wall"), "thread-cpu": ("cpu",), "global": ("cpu",)}
    has = clocks.get(entry.clock, (entry.clock,)) if isinstance(entry, Reads) else ("cpu", "wall")
    for clock in ("cpu", "wall"):
        if command.endswith(f"-{clock}") and clock not in has:
            return f"has no {clock} clock"
    return None


@pytest.mark.parametrize(("rel", "command"), CASES, ids=[f"{r}:{c}" for r, c in CASES])
def test_command_on_corpus_file(rel: str, command: str, tmp_path: Path) -> None:
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    stderr = io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        status = main(argv(command, str(CORPUS / rel), tmp_path))
    err = stderr.getvalue()
    assert "Traceback" not in err, err[-3000:]
    refusal = expected_refusal(rel, command)
    if refusal is None:
        assert status == 0, err[-3000:]
        if command in WRITES:
            assert (tmp_path / WRITES[command]).exists()
        return
    assert status == 2, (status, err[-3000:])
    lines = err.splitlines()
    assert len(lines) == 1 and refusal in lines[0], err[-3000:]


MONOTONIC = ["stats-monotonic", "anr-monotonic"]
MONOTONIC_CASES = [(p.relative_to(CORPUS).as_posix(), c) for p in corpus_files() for c in MONOTONIC]


@pytest.mark.parametrize(
    ("rel", "command"), MONOTONIC_CASES, ids=[f"{r}:{c}" for r, c in MONOTONIC_CASES]
)
def test_times_on_clock_monotonic_on_corpus_file(rel: str, command: str) -> None:
    """`--time monotonic` on every corpus file: shown (status 0) when the file anchors its
    times on CLOCK_MONOTONIC, else refused in one line saying why (or the file's own
    refusal), never a traceback."""
    name = command.split("-")[0]
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    stderr = io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        status = main([name, "--time", "monotonic", str(CORPUS / rel)])
    err = stderr.getvalue()
    assert "Traceback" not in err, err[-3000:]
    if status == 0:
        return
    assert status == 2, (status, err[-3000:])
    lines = err.splitlines()
    own = refused(rel)
    why = own if own is not None else "times cannot be shown on CLOCK_MONOTONIC"
    assert len(lines) == 1 and why in lines[0], err[-3000:]
