"""`traceview diff` through `traceview.cli.main`: planted regressions in generated runs written
in several variants are found (exit 1) in every output format, each parsed by a real parser
(json, xml.etree); thresholds that exclude them give exit 0; bad input exits 2 with one line;
untrusted names are escaped in every format."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from support.plant import ALWAYS, NOISY, SOMETIMES, planted_runs
from support.tracebuild import make_trace
from traceview.cli import main
from traceview.model import Variant
from traceview.writer import write

VARIANTS: tuple[Variant, ...] = ("regular", "streaming", "v2", "split", "regular")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], list[str]]:
    root = tmp_path_factory.mktemp("runs")
    base, cand = planted_runs()
    paths: tuple[list[str], list[str]] = ([], [])
    for side, traces, out in (("base", base, paths[0]), ("cand", cand, paths[1])):
        for i, trace in enumerate(traces):
            variant = VARIANTS[i]
            path = root / (f"{side}{i}" if variant == "split" else f"{side}{i}.trace")
            write(trace, path, variant=variant)
            out.append(str(path))  # a split pair opens by its base name
    return paths


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["diff", *args])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_text_table_names_the_regressions(
    runs: tuple[list[str], list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run([*runs[0], "--vs", *runs[1]], capsys)
    assert code == 1 and err == ""
    lines = [ln for ln in out.splitlines() if "│ regression" in ln]
    assert len(lines) == 2
    assert any(SOMETIMES in ln for ln in lines) and any(ALWAYS in ln for ln in lines)
    assert "95 % confidence (t > 2.296 for 5 + 5 runs)" in out.replace("\n", " ")
    assert out.rstrip().endswith("2 regressions, 1 change within the spread")


def test_json_lists_every_method_and_the_statistic(
    runs: tuple[list[str], list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run([*runs[0], "--vs", *runs[1], "--json"], capsys)
    assert code == 1
    doc = json.loads(out)
    found = {f"{r['class']}.{r['name']}" for r in doc["regressions"]}
    assert found == {SOMETIMES, ALWAYS}
    assert doc["statistic"]["critical_t"] == pytest.approx(2.296, abs=1e-3)
    assert doc["statistic"]["degrees_of_freedom"] == 8
    assert doc["thresholds"] == {
        "metric": "excl",
        "fail_above_percent": 10.0,
        "min_time_us": 1000.0,
        "confidence_percent": 95.0,
        "methods": [],
    }
    by = {f"{m['class']}.{m['name']}": m for m in doc["methods"]}
    assert by[NOISY]["status"] == "noise" and by[NOISY]["excl"]["significant"] is False
    assert by[ALWAYS]["excl"]["change_percent"] == pytest.approx(100, abs=3)
    assert by[ALWAYS]["excl"]["t"] > 2.296
    assert [m["status"] for m in doc["methods"][:2]] == ["regression", "regression"]
    assert {t["name"] for t in doc["threads"]} == {"main", "RenderThread", "Binder:16195_1"}
    assert doc["counts"]["regression"] == 2


def test_junit_has_a_failure_per_regression(
    runs: tuple[list[str], list[str]], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    junit = tmp_path / "diff.xml"
    code, out, _ = run([*runs[0], "--vs", *runs[1], "--junit", str(junit), "--json"], capsys)
    assert code == 1
    gated = [m for m in json.loads(out)["methods"] if m["gated"]]
    root = ET.parse(junit).getroot()
    assert root.tag == "testsuites"
    suite = root.find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    assert len(cases) == len(gated) == int(suite.get("tests", "-1"))
    failed = {
        f"{c.get('classname')}.{c.get('name', '').split('(')[0]}"
        for c in cases
        if c.find("failure") is not None
    }
    assert failed == {SOMETIMES, ALWAYS}
    assert suite.get("failures") == root.get("failures") == "2"
    message = next(c.find("failure") for c in cases if c.find("failure") is not None)
    assert message is not None and "beyond the run-to-run spread" in message.get("message", "")


def test_markdown_table(
    runs: tuple[list[str], list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run([*runs[0], "--vs", *runs[1], "--markdown"], capsys)
    assert code == 1
    assert out.startswith("### traceview diff: 2 regressions\n")
    flagged = [ln for ln in out.splitlines() if ln.startswith("| **regression** |")]
    assert len(flagged) == 2
    assert any("TextView.onDraw" in ln for ln in flagged)
    assert any("BoringLayout.isBoring" in ln for ln in flagged)
    assert all(ln.count(" | ") == 6 for ln in flagged)  # `$` and `[` escaped, no stray cells
    assert "StaticLayout\\$Builder" in out


def test_thresholds_that_exclude_them_pass(
    runs: tuple[list[str], list[str]], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert run([*runs[0], "--vs", *runs[1], "--fail-above", "150%"], capsys)[0] == 0
    assert run([*runs[0], "--vs", *runs[1], "--methods", "com.example.*"], capsys)[0] == 0
    assert run([*runs[0], "--vs", *runs[0][::-1]], capsys)[0] == 0  # baseline vs itself
    code, out, _ = run([*runs[0], "--vs", *runs[1], "--methods", "re:isBoring", "--json"], capsys)
    assert code == 1
    assert [r["name"] for r in json.loads(out)["regressions"]] == ["isBoring"]
    # the regression in exclusive time is a candidate faster? no: swapping sides -> improvements
    code, out, _ = run([*runs[1], "--vs", *runs[0], "--json"], capsys)
    assert code == 0
    doc = json.loads(out)
    assert doc["counts"]["improvement"] == 2


def test_selection_options_apply(
    runs: tuple[list[str], list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run([*runs[0], "--vs", *runs[1], "--thread", "RenderThread", "--json"], capsys)
    assert code == 0  # the slower methods run on the main thread
    doc = json.loads(out)
    assert [t["name"] for t in doc["threads"]] == ["RenderThread"]
    code, out, _ = run([*runs[0], "--vs", *runs[1], "--clock", "wall", "--json"], capsys)
    assert code == 1 and json.loads(out)["clock"] == "wall"


def test_one_run_per_side(
    runs: tuple[list[str], list[str]], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    junit = tmp_path / "one.xml"
    code, out, _ = run([runs[0][0], "--vs", runs[1][0], "--json", "--junit", str(junit)], capsys)
    assert code == 1
    doc = json.loads(out)
    assert doc["statistic"]["spread_known"] is False
    assert doc["statistic"]["critical_t"] is None
    assert all(m["excl"]["significant"] is None for m in doc["methods"])
    assert any("no run-to-run spread" in n for n in doc["notes"])
    ET.parse(junit)
    code, out, _ = run([runs[0][0], "--vs", runs[1][0]], capsys)
    assert "no run-to-run spread known" in out


EVENTS = [
    (1, "enter", "com.a.Main.run", 0, 0),
    (1, "enter", "com.a.Old.work", 100, 100),
    (1, "exit", "com.a.Old.work", 5100, 5100),
    (1, "exit", "com.a.Main.run", 6000, 6000),
]


def test_methods_on_one_side_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "a.trace", tmp_path / "b.trace"
    write(make_trace(EVENTS, names={1: "main"}), a)
    renamed = [(t, x, m.replace("Old", "New"), c, w) for t, x, m, c, w in EVENTS]
    write(make_trace(renamed, names={1: "main"}), b)
    code, out, _ = run([str(a), "--vs", str(b), "--json"], capsys)
    assert code == 1
    by = {f"{m['class']}.{m['name']}": m for m in json.loads(out)["methods"]}
    assert by["com.a.New.work"]["on_baseline"] is False
    assert by["com.a.New.work"]["status"] == "regression"
    assert by["com.a.Old.work"]["on_candidate"] is False
    code, out, _ = run([str(a), "--vs", str(b), "--min-time", "10ms"], capsys)
    assert code == 0
    assert "│ new" in out and "│ gone" in out


WEIRD = "com.x.A|b`c<d>&e\x1b[31m"


def test_names_are_escaped_in_every_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = [(t, x, m.replace("com.a.Old", WEIRD), c, w) for t, x, m, c, w in EVENTS]
    events += [(2, x, m, c, w) for _, x, m, c, w in EVENTS[:1] + EVENTS[-1:]]  # a 2nd thread
    slow = [(t, x, m, c * 2, w * 2) for t, x, m, c, w in events]
    a, b = tmp_path / "a.trace", tmp_path / "b.trace"
    names = {1: "main", 2: "ma|in`"}  # the main thread is matched as "main" whatever its name
    write(make_trace(events, names=names), a)
    write(make_trace(slow, names=names), b)
    junit = tmp_path / "w.xml"
    code, out, _ = run([str(a), "--vs", str(b), "--junit", str(junit)], capsys)
    assert code == 1 and "\x1b" not in out and "\\x1b[31m" in out
    cases = ET.parse(junit).getroot().iter("testcase")
    assert any(c.get("classname") == "com.x.A|b`c<d>&e\\x1b[31m" for c in cases)
    code, out, _ = run([str(a), "--vs", str(b), "--markdown"], capsys)
    assert "\x1b" not in out
    assert "com.x.A\\|b\\`c&lt;d&gt;&amp;e\\\\x1b\\[31m.work" in out
    assert "| ma\\|in\\` |" in out
    code, out, _ = run([str(a), "--vs", str(b), "--json"], capsys)
    assert any(m["class"] == WEIRD for m in json.loads(out)["methods"])


@pytest.mark.parametrize(
    "args",
    [
        ["{b}", "--vs", "{missing}"],
        ["{b}"],
        ["{b}", "--vs", "{b}", "--fail-above", "ten"],
        ["{b}", "--vs", "{b}", "--min-time", "5"],
        ["{b}", "--vs", "{b}", "--methods", "re:("],
        ["{b}", "--vs", "{b}", "--json", "--markdown"],
        ["{b}", "--vs", "{b}", "--confidence", "100%"],
        ["{b}", "--vs", "{b}", "--thread", "nosuchthread"],
        ["{b}", "--vs", "{notatrace}"],
    ],
)
def test_bad_input_exits_2_with_one_line(
    args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    b = tmp_path / "b.trace"
    write(make_trace(EVENTS, names={1: "main"}), b)
    junk = tmp_path / "junk.trace"
    junk.write_bytes(b"not a trace at all")
    paths = {"b": str(b), "missing": str(tmp_path / "nope.trace"), "notatrace": str(junk)}
    code, out, err = run([a.format(**paths) for a in args], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("traceview: ")
