"""Exporters: every output format behind one small contract, listed in one registry.

An `Exporter` has a `name` (what `--format` takes), the file `suffixes` it is guessed from,
whether it writes `binary` or text, and `export(view, out, options)`: it renders a `View`
(one session through one query, analysis/view.py) into an open stream. Exporters compute
nothing themselves: every number comes from the view, so all formats agree. Names from the
trace are escaped for each format (`model.text.visible` / `printable`).

Formats are imported only when used (`get(name)`), so a command pays only for its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from pathlib import PurePath
from typing import IO, Any, Generic, TypeVar

from traceview.analysis.view import View


@dataclass(frozen=True)
class Options:
    """Presentation choices some formats honour (the selection itself is the view's query):
    `sort` (a column name), `limit` (rows), `max_depth` (tree levels), `budget_bytes` (how
    much a report may precompute), `title`, `merge_threads` (one tree for all selected threads
    instead of one per thread, in formats that can hold either); for the formats that
    reproduce another tool: `policy` (its stack policies, "dmtracedump", or the engine's,
    "traceview"),
    `threshold` (a percentage cut-off, e.g. a call graph's), `script_url` (a URL base to
    load a page's script from instead of inlining it)."""

    sort: str | None = None
    limit: int | None = None
    max_depth: int | None = None
    budget_bytes: int | None = None
    title: str | None = None
    policy: str | None = None
    threshold: int | None = None
    script_url: str | None = None
    merge_threads: bool = False


ExportFn = Callable[[View, IO[Any], Options], None]

# what an exporter renders: a `View` for every single-trace format; the `diff` formats render
# an `analysis.diff.DiffView` (several runs per side), through the same contract
S = TypeVar("S")


@dataclass(frozen=True)
class Exporter(Generic[S]):
    """One output format: `export(view, out, options)` writes to `out` (bytes when `binary`)."""

    name: str
    suffixes: tuple[str, ...]
    binary: bool
    description: str
    export: Callable[[S, IO[Any], Options], None]


# name -> (module, attribute): the explicit table of every format, loaded on first use
REGISTRY: dict[str, tuple[str, str]] = {
    "dump": ("traceview.exporters.dump", "DUMP"),
    "info": ("traceview.exporters.info", "TEXT"),
    "info-json": ("traceview.exporters.info", "JSON"),
    "stats": ("traceview.exporters.stats", "TEXT"),
    "stats-json": ("traceview.exporters.stats", "JSON"),
    "tree": ("traceview.exporters.tree", "TEXT"),
    "tree-json": ("traceview.exporters.tree", "JSON"),
    "report": ("traceview.viewer.report", "REPORT"),
    "diff": ("traceview.exporters.diff", "TEXT"),
    "diff-json": ("traceview.exporters.diff", "JSON"),
    "diff-junit": ("traceview.exporters.junit", "JUNIT"),
    "diff-markdown": ("traceview.exporters.markdown", "MARKDOWN"),
    "diff-svg": ("traceview.exporters.diffsvg", "SVG"),
    "dmtracedump": ("traceview.exporters.dmtracedump", "TEXT"),
    "dmtracedump-html": ("traceview.exporters.dmtracedump_html", "HTML"),
    "dmtracedump-events": ("traceview.exporters.dmtracedump_events", "EVENTS"),
    "dot": ("traceview.exporters.dot", "DOT"),
    "folded": ("traceview.exporters.folded", "FOLDED"),
    "svg": ("traceview.exporters.svg", "SVG"),
    "chrome": ("traceview.exporters.chrome", "CHROME"),
    "speedscope": ("traceview.exporters.speedscope", "SPEEDSCOPE"),
    "pprof": ("traceview.exporters.pprof", "PPROF"),
    "parquet": ("traceview.exporters.parquet", "PARQUET"),
}


def get(name: str) -> Exporter[Any]:
    """The exporter called `name`; KeyError listing the known names otherwise."""
    try:
        module, attr = REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(REGISTRY))
        raise KeyError(f"unknown format {name!r} (known: {known})") from None
    exporter: Exporter[Any] = getattr(import_module(module), attr)
    return exporter


def for_path(path: str, candidates: tuple[str, ...] | None = None) -> Exporter[Any] | None:
    """The exporter whose suffix ends `path` (longest suffix first), among `candidates`
    (names; default all), or None."""
    name = PurePath(path).name.lower()
    best: tuple[int, Exporter[Any]] | None = None
    for key in candidates or tuple(REGISTRY):
        exporter = get(key)
        for suffix in exporter.suffixes:
            if name.endswith(suffix) and (best is None or len(suffix) > best[0]):
                best = (len(suffix), exporter)
    return best[1] if best else None


__all__ = ["REGISTRY", "ExportFn", "Exporter", "Options", "for_path", "get"]
