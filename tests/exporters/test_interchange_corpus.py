"""Every readable corpus trace in every interchange format, on each of its clocks: the files
parse (JSON, XML, gzip), folded and pprof totals equal the profile's thread totals minus
toplevel, and Chrome has one complete event per call. Skips when the corpus is absent."""

from __future__ import annotations

import gzip
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

import traceview
from support.corpus import readable
from traceview.analysis import Session
from traceview.analysis.view import View
from traceview.exporters import get


def render(view: View, name: str) -> Any:
    exporter = get(name)
    buf: Any = io.BytesIO() if exporter.binary else io.StringIO()
    exporter.export(view, buf)
    return buf.getvalue()


@pytest.mark.parametrize("path", readable(), ids=lambda p: p.name)
def test_corpus_trace_in_every_format(path: Path) -> None:
    session = Session(traceview.load(path))
    for clock in session.clocks:
        view = View(session, session.query(clock=clock))
        prof = view.profile()
        want = int(prof.thread_total[clock].sum()) - int(prof.toplevel[clock])
        folded = render(view, "folded")
        assert sum(int(line.rpartition(" ")[2]) for line in folded.splitlines()) == want
        chrome = json.loads(render(view, "chrome"))
        assert sum(e["ph"] == "X" for e in chrome["traceEvents"]) == len(session.calls)
        speedscope = json.loads(render(view, "speedscope"))
        events = sum(len(p["events"]) for p in speedscope["profiles"])
        assert events == 2 * len(session.calls)
        ET.fromstring(render(view, "svg").encode())
        assert gzip.decompress(render(view, "pprof"))
