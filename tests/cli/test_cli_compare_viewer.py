"""`traceview compare BASE... --vs NEW...` (the viewer in compare mode) and `traceview report
BASE --vs NEW`: the app the command serves answers both sides and the comparison of every run;
bad input is one line and exit status 2; `-o diff.svg` of `diff` refuses a flag the SVG format
does not take."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

from support.plant import ALWAYS, planted_runs
from traceview.cli import compare as compare_cli
from traceview.cli import main
from traceview.writer import write

with warnings.catch_warnings():  # "use httpx2": not installed here; httpx works
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], list[str]]:
    folder = tmp_path_factory.mktemp("runs")
    base, cand = planted_runs(runs=2)
    out: tuple[list[str], list[str]] = ([], [])
    for side, traces in enumerate((base, cand)):
        for i, t in enumerate(traces):
            path = folder / f"{side}-{i}.trace"
            write(t, path)
            out[side].append(str(path))
    return out


def test_compare_serves_both_sides_and_every_run(
    files: tuple[list[str], list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    served: dict[str, Any] = {}

    def run(app: Any, sock: Any, args: Any) -> None:
        served["app"] = app
        sock.close()

    monkeypatch.setattr(compare_cli, "run", run)
    base, cand = files
    assert main(["compare", *base, "--vs", *cand, "--no-browser", "--fail-above", "5%"]) == 0
    client = TestClient(served["app"], base_url="http://127.0.0.1")
    trace = client.get("/api/trace").json()
    assert trace["compare"]["baseline"] == base and trace["compare"]["candidate"] == cand
    a = client.get("/api/compare").json()
    assert a["spread_known"] is True and a["thresholds"]["fail_above_percent"] == 5.0
    slow = [s for s, st in zip(a["methods"]["label"], a["methods"]["state"], strict=True)
            if st == "slower"]  # fmt: skip
    assert any(s.startswith(ALWAYS + " ") for s in slow)


def test_bad_input_is_one_line(
    files: tuple[list[str], list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.trace"
    bad.write_bytes(b"not a trace at all")
    assert main(["compare", files[0][0], "--vs", str(bad), "--no-browser"]) == 2
    err = capsys.readouterr().err
    assert "bad.trace" in err and len(err.strip().splitlines()) == 1
    assert main(["compare", files[0][0], "--no-browser"]) == 2  # --vs is required
    assert main(["compare", files[0][0], "--vs", files[1][0], "--fail-above", "x"]) == 2
    out = tmp_path / "c.html"
    assert main(["report", files[0][0], "--vs", str(bad), "-o", str(out)]) == 2
    assert not out.exists()


def test_diff_svg_takes_no_limit(files: tuple[list[str], list[str]], tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    svg = tmp_path / "d.svg"
    assert main(["diff", files[0][0], "--vs", files[1][0], "-o", str(svg), "--limit", "3"]) == 2
    assert "--limit does not apply to diff-svg" in capsys.readouterr().err
    assert main(["diff", files[0][0], "--vs", files[1][0], "-o", str(svg)]) in (0, 1)
    assert svg.read_text(encoding="utf-8").startswith("<?xml") or "<svg" in svg.read_text()
