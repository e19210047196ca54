"""`traceview diff` with call paths, each output read by its consumer: the per-path JSON rows
agree with the Python API (`traceview.compare` / `paths_table`), the Markdown renders (with
markdown-it-py, as a pull-request comment would) into well-formed tables naming the planted
paths, `-o FILE.svg` / `--svg FILE` write the differential flame graph, and the old gate keeps
its exit statuses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import traceview
from support.plant import ALWAYS, SOMETIMES, planted_runs
from traceview.cli import main
from traceview.writer import write

MOVED = "android.app.servertransaction.TransactionExecutor.execute"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], list[str]]:
    root = tmp_path_factory.mktemp("paths")
    base, cand = planted_runs(moved=True)
    out: tuple[list[str], list[str]] = ([], [])
    for side, traces, paths in (("base", base, out[0]), ("cand", cand, out[1])):
        for i, trace in enumerate(traces):
            path = root / f"{side}{i}.trace"
            write(trace, path)
            paths.append(str(path))
    return out


def diff(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["diff", *args])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def json_paths(doc: dict[str, Any]) -> dict[tuple[str, ...], dict[str, Any]]:
    """The JSON's path rows by their frames, rebuilt from the parent links."""
    rows = doc["paths"]
    full: list[tuple[str, ...]] = []
    for r in rows:
        up = () if r["parent"] is None else full[r["parent"]]
        full.append((*up, r["frame"]))
    return dict(zip(full, rows, strict=True))


def test_json_path_rows_agree_with_the_python_api(
    runs: tuple[list[str], list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = diff([*runs[0], "--vs", *runs[1], "--json"], capsys)
    assert code == 1  # the gate: two regressions, as before paths existed
    doc = json.loads(out)
    assert {f"{r['class']}.{r['name']}" for r in doc["regressions"]} == {SOMETIMES, ALWAYS}
    by_path = json_paths(doc)
    assert by_path and doc["paths_left_out"] > 0
    api = traceview.compare(runs[0], runs[1])
    table = traceview.paths_table(api)
    frames: list[tuple[str, ...]] = []
    checked = 0
    for i, row in enumerate(table.rows()):
        up = () if row["parent"] < 0 else frames[row["parent"]]
        frames.append((*up, row["frame"]))
        hit = by_path.get(frames[-1])
        if hit is None:
            assert max(row["incl_ns_base"], row["incl_ns_cand"]) < 1_000_000
            continue
        checked += 1
        assert hit["state"] == row["state"] and hit["gated"] == row["gated"]
        assert hit["incl"]["baseline_us"] == pytest.approx(row["incl_ns_base"] / 1000, abs=1e-3)
        assert hit["excl"]["candidate_us"] == pytest.approx(row["excl_ns_cand"] / 1000, abs=1e-3)
        assert hit["calls"]["candidate"] == row["calls_cand"]
        assert i == 0 or hit["parent"] is not None or row["parent"] < 0
    assert checked == len(by_path)
    slower = {p[-1] for p, r in by_path.items() if r["state"] == "slower"}
    assert {s.split(" ")[0] for s in slower} == {SOMETIMES, ALWAYS}
    methods = traceview.methods_table(api)
    state = methods["state"]
    assert state is not None
    slower_names = methods.where(state == "slower")["name"]
    assert slower_names is not None
    assert set(slower_names) == {"onDraw", "isBoring"}


def rendered(markdown: str) -> list[list[list[str]]]:
    """The tables of `markdown` as rendered by markdown-it-py (GitHub-style tables), each a
    list of rows of cell texts (the header first)."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    tables: list[list[list[str]]] = []
    row: list[str] = []
    for k, tok in enumerate(tokens):
        if tok.type == "table_open":
            tables.append([])
        elif tok.type == "tr_open":
            row = []
        elif tok.type in ("th_open", "td_open"):
            inline = tokens[k + 1]
            row.append("".join(c.content for c in inline.children or [] if c.type == "text"))
        elif tok.type == "tr_close":
            tables[-1].append(row)
    return tables


def test_markdown_renders_tables_naming_the_planted_paths(
    runs: tuple[list[str], list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = diff([*runs[0], "--vs", *runs[1], "--markdown", "--min-time", "0.5ms"], capsys)
    assert code == 1
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark").enable("table").render(out)
    assert "<h4>Where in the call tree" in html and "<script" not in html
    methods, paths, threads = rendered(out)
    assert methods[0][:2] == ["Status", "Method"] and threads[0][0] == "Thread"
    assert paths[0] == [
        "State",
        "Call path",
        "Baseline exclusive ms",
        "Candidate exclusive ms",
        "Change",
        "t",
        "Inclusive ms",
    ]
    body = paths[1:]
    assert all(len(r) == 7 for r in body)  # no name broke a cell
    states = {r[0] for r in body}
    assert states == {"slower", "new", "gone"}  # bold is markup, not text
    ends = {r[1].rsplit(" › ", 1)[1] for r in body if r[0] == "slower"}
    assert ends == {"TextView.onDraw", "BoringLayout.isBoring"}
    moved = [r[1] for r in body if r[0] in ("new", "gone")]
    assert len(moved) == 2 and all(m.endswith("TransactionExecutor.execute") for m in moved)
    assert len({r[1] for r in body}) == len(body)  # every line tells its path apart
    assert all(r[1].startswith("main › ") for r in body)


def test_flame_graph_outputs(
    runs: tuple[list[str], list[str]], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    svg = tmp_path / "diff.svg"
    code, out, err = diff([*runs[0], "--vs", *runs[1], "-o", str(svg)], capsys)
    assert code == 1 and out == "" and err == ""
    head = svg.read_text(encoding="utf-8")
    assert head.startswith("<?xml") and 'id="diff-data"' in head
    also = tmp_path / "also.svg"
    code, out, _ = diff([*runs[0], "--vs", *runs[1], "--json", "--svg", str(also)], capsys)
    assert code == 1 and json.loads(out)["paths"] and also.read_text(encoding="utf-8") == head
    code, out, err = diff([*runs[0], "--vs", *runs[1], "-o", str(svg), "--json"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1


def test_the_gate_keeps_its_exit_statuses(
    runs: tuple[list[str], list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert diff([*runs[0], "--vs", *runs[0]], capsys)[0] == 0
    assert diff([*runs[0], "--vs", *runs[1], "--fail-above", "150%"], capsys)[0] == 0
    code, out, _ = diff([*runs[1], "--vs", *runs[0], "--json"], capsys)
    assert code == 0 and json.loads(out)["counts"]["improvement"] == 2
    faster = {p[-1] for p, r in json_paths(json.loads(out)).items() if r["state"] == "faster"}
    assert {s.split(" ")[0] for s in faster} == {SOMETIMES, ALWAYS}


def test_the_selection_applies_to_the_paths_of_both_sides(
    runs: tuple[list[str], list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    args = [*runs[0][:2], "--vs", *runs[1][:2], "--json", "--min-time", "0"]
    _, out, _ = diff([*args, "--my-code", "android.widget", "--thread", "main"], capsys)
    doc = json.loads(out)
    frames = {p[-1] for p in json_paths(doc)}
    assert {f for f in frames if not f.startswith("android.widget.")} == {"main"}
    assert any(f.startswith(SOMETIMES + " ") for f in frames)
    _, out, _ = diff([*args, "--from", "0", "--to", "1ms"], capsys)
    doc = json.loads(out)
    roots = [r for r in doc["paths"] if r["parent"] is None]
    assert roots and all(r["incl"]["baseline_us"] <= 1000 for r in roots)  # each a thread
