"""Exporters: every output format behind one small contract, listed in one table.

A format module declares `NAME`, `SUFFIXES` (what its output files end with), `BINARY` (bytes
or text), `SUBJECT` (what it renders, below), its own `Options` (a small frozen dataclass of
only the fields it reads: the command-line flags it takes are these fields) and
`export(subject, out, options)`. Formats compute nothing: every number comes from the
subject, so all formats agree; names from the trace are escaped for each format
(`model.text.visible` / `printable`).

`REGISTRY` names every format with its module path, suffixes, binary, subject kind and
description as plain strings, so guessing a format from a path (`for_path`) or listing the
formats imports no format module; `get(name)` returns a `Format`, which imports its module on
first use. The subject kinds:

- `view`: a `View` (one session through one query), written to a stream;
- `pair`: a `Pair` of views (dmtracedump's `-d`: run 1 and run 2), written to a stream;
- `runs`: an `analysis.diff.DiffView` (several runs per side), written to a stream;
- `directory`: a `View` written as files into a directory (`out` is its path: Parquet).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from importlib import import_module
from pathlib import PurePath
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from traceview.analysis.view import View

SubjectKind = Literal["view", "pair", "runs", "directory"]
SUBJECTS: tuple[SubjectKind, ...] = ("view", "pair", "runs", "directory")

# name -> (module, suffixes, binary, subject kind, description): the one table of formats
REGISTRY: dict[str, tuple[str, tuple[str, ...], bool, SubjectKind, str]] = {
    "dump": (
        "traceview.exporters.dump",
        (".txt",),
        False,
        "view",
        "traceview -r: the regression-only text dump",
    ),
    "info": (
        "traceview.exporters.info",
        (),
        False,
        "view",
        "what the file is and what was repaired",
    ),
    "info-json": (
        "traceview.exporters.info_json",
        (),
        False,
        "view",
        "what the file is and what was repaired, as JSON",
    ),
    "anr": (
        "traceview.exporters.anr",
        (),
        False,
        "view",
        "what was open and slow when an ANR hit (calls open at the dump, slow calls)",
    ),
    "anr-json": (
        "traceview.exporters.anr_json",
        (),
        False,
        "view",
        "what was open and slow when an ANR hit, as JSON",
    ),
    "stats": ("traceview.exporters.stats", (), False, "view", "per-method statistics as a table"),
    "stats-json": (
        "traceview.exporters.stats_json",
        (".json",),
        False,
        "view",
        "per-method statistics as JSON",
    ),
    "tree": ("traceview.exporters.tree", (), False, "view", "top-down call tree as indented text"),
    "tree-json": (
        "traceview.exporters.tree_json",
        (),
        False,
        "view",
        "top-down call tree as nested JSON",
    ),
    "report": (
        "traceview.viewer.report",
        (".html", ".htm"),
        False,
        "view",
        "the viewer as one self-contained HTML file (works offline)",
    ),
    "folded": (
        "traceview.exporters.folded",
        (".folded", ".collapsed", ".folded.txt"),
        False,
        "view",
        "collapsed stacks (flamegraph.pl, inferno, speedscope): self ns per call path",
    ),
    "svg": (
        "traceview.exporters.svg",
        (".svg",),
        False,
        "view",
        "interactive flame graph (standalone SVG: hover, click to zoom, search)",
    ),
    "chrome": (
        "traceview.exporters.chrome",
        (".chrome.json", ".json"),
        False,
        "view",
        "Chrome Trace Event JSON (Perfetto UI, chrome://tracing): one event per call",
    ),
    "speedscope": (
        "traceview.exporters.speedscope",
        (".speedscope.json", ".speedscope"),
        False,
        "view",
        "speedscope's file format: one evented profile per thread",
    ),
    "pprof": (
        "traceview.exporters.pprof",
        (".pb.gz", ".pb", ".pprof", ".pprof.gz"),
        True,
        "view",
        "pprof profile.proto (gzipped): calls and self time on both clocks per call path",
    ),
    "parquet": (
        "traceview.exporters.parquet",
        (".parquet",),
        True,
        "directory",
        "Parquet tables (calls, methods, threads, edges) in a directory (needs pyarrow)",
    ),
    "dmtracedump": (
        "traceview.exporters.dmtracedump",
        (".dmtrace.txt",),
        True,
        "view",
        "dmtracedump's text report (exclusive, inclusive, class and method-name profiles)",
    ),
    "dmtracedump-html": (
        "traceview.exporters.dmtracedump_html",
        (".dmtrace.html",),
        True,
        "view",
        "dmtracedump's report as an HTML page (-h)",
    ),
    "dmtracedump-events": (
        "traceview.exporters.dmtracedump_events",
        (".dmtrace.events",),
        True,
        "view",
        "dmtracedump's record dump (-o): every enter and exit with its thread, time and depth",
    ),
    "dot": (
        "traceview.exporters.dot",
        (".dot", ".gv"),
        False,
        "view",
        "dmtracedump's call graph (-g) as Graphviz DOT",
    ),
    "dmtracedump-diff": (
        "traceview.exporters.dmtracedump_diff",
        (),
        True,
        "pair",
        "dmtracedump's comparison of two traces (-d) as text",
    ),
    "dmtracedump-diff-html": (
        "traceview.exporters.dmtracedump_diff_html",
        (),
        True,
        "pair",
        "dmtracedump's comparison of two traces as an HTML page (-d -h)",
    ),
    "diff": (
        "traceview.exporters.diff",
        (),
        False,
        "runs",
        "comparison of runs as a terminal table",
    ),
    "diff-json": ("traceview.exporters.diff_json", (), False, "runs", "comparison of runs as JSON"),
    "diff-junit": (
        "traceview.exporters.junit",
        (".xml",),
        False,
        "runs",
        "comparison of runs as JUnit XML for CI",
    ),
    "diff-markdown": (
        "traceview.exporters.markdown",
        (".md",),
        False,
        "runs",
        "comparison of runs as Markdown",
    ),
    "diff-svg": (
        "traceview.exporters.diffsvg",
        (".svg",),
        False,
        "runs",
        "comparison of runs as an interactive differential flame graph (standalone SVG)",
    ),
}


@dataclass(frozen=True)
class Pair:
    """The subject of a two-trace comparison: `run1` (dmtracedump's `-d` trace) and `run2`."""

    run1: View
    run2: View


@dataclass(frozen=True)
class Format:
    """One registry entry; `load()` imports its module (the rest reads the table only)."""

    name: str
    module: str
    suffixes: tuple[str, ...]
    binary: bool
    subject: SubjectKind
    description: str

    def load(self) -> ModuleType:
        """The format's module."""
        return import_module(self.module)

    @property
    def options_type(self) -> type[Any]:
        """The format's own frozen options dataclass."""
        options: type[Any] = self.load().Options
        return options

    def flags(self) -> tuple[str, ...]:
        """The options the format takes: its `Options` fields."""
        return tuple(f.name for f in dataclasses.fields(self.options_type))

    def options(self, **values: Any) -> Any:
        """The format's options with `values` (TypeError naming what it takes otherwise)."""
        unknown = sorted(set(values) - set(self.flags()))
        if unknown:
            takes = ", ".join(self.flags()) or "no options"
            raise TypeError(f"{self.name} takes no {', '.join(unknown)} (it takes: {takes})")
        return self.options_type(**values)

    def export(self, subject: Any, out: Any, options: Any = None) -> None:
        """Render `subject` into `out` (a stream, bytes when `binary`; a directory path for
        a `directory` format) with this format's `options` (default: its defaults)."""
        module = self.load()
        if options is None:
            options = module.Options()
        elif not isinstance(options, module.Options):
            raise TypeError(f"{self.name} takes its own options, not {type(options).__name__}")
        module.export(subject, out, options)


def get(name: str) -> Format:
    """The format called `name`; KeyError listing the known names otherwise."""
    try:
        module, suffixes, binary, subject, description = REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(REGISTRY))
        raise KeyError(f"unknown format {name!r} (known: {known})") from None
    return Format(name, module, suffixes, binary, subject, description)


def names(*subjects: SubjectKind) -> tuple[str, ...]:
    """The formats rendering one of `subjects` (all without), in the table's order."""
    return tuple(k for k, entry in REGISTRY.items() if not subjects or entry[3] in subjects)


def for_path(path: str, candidates: tuple[str, ...] | None = None) -> Format | None:
    """The format whose suffix ends `path` (longest suffix first), among `candidates` (names;
    default all), or None. Reads the table only: no format module is imported."""
    name = PurePath(path).name.lower()
    best: tuple[int, str] | None = None
    for key in candidates or tuple(REGISTRY):
        for suffix in REGISTRY[key][1]:
            if name.endswith(suffix) and (best is None or len(suffix) > best[0]):
                best = (len(suffix), key)
    return get(best[1]) if best else None


__all__ = ["REGISTRY", "SUBJECTS", "Format", "Pair", "SubjectKind", "for_path", "get", "names"]
