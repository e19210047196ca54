"""The `info-json` format: the facts `info` shows (`exporters.info.summary`) as one JSON object
(docs/json.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Any

from traceview.analysis.view import View
from traceview.exporters.info import summary
from traceview.exporters.jsonshape import dumps

NAME = "info-json"
SUFFIXES: tuple[str, ...] = ()
BINARY = False
SUBJECT = "view"


@dataclass(frozen=True)
class Options:
    """`info-json` takes no options: it holds every fact."""


def export(view: View, out: IO[Any], options: Options) -> None:
    """The facts as one JSON object."""
    out.write(dumps(summary(view)) + "\n")
