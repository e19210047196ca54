"""`--mapping`: every command that shows names shows the originals (generated traces
obfuscated with a known mapping; the corpus's minified trace with a hand-written one)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from support.corpus import corpus_path
from support.obfuscate import obfuscate
from support.report_data import report_answers
from traceview.analysis import Session
from traceview.analysis.rename import MappingRename
from traceview.cli import main as cli_main
from traceview.readers.mapping import read_mapping
from traceview.synth import generate
from traceview.viewer.answers import methods_answer
from traceview.writer import write


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """(plain trace, obfuscated trace, its mapping)."""
    folder = tmp_path_factory.mktemp("mapping")
    trace = generate(records=4000, threads=3, seed=7)
    obf, text = obfuscate(trace, "z")
    plain, hidden, mapping = folder / "plain.trace", folder / "obf.trace", folder / "mapping.txt"
    write(trace, plain, variant="regular")
    write(obf, hidden, variant="regular")
    mapping.write_text(text)
    return plain, hidden, mapping


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert cli_main(argv) == 0
    return capsys.readouterr().out


def labels(stats_json: str) -> set[str]:
    rows = json.loads(stats_json)["methods"]
    return {f"{r['class']}.{r['name']} {r['signature']}" for r in rows}


def test_stats_json_shows_the_originals(
    pair: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    plain, hidden, mapping = pair
    want = labels(run(["stats", str(plain), "--json"], capsys))
    assert labels(run(["stats", str(hidden), "--json"], capsys)) != want
    out = run(["stats", str(hidden), "--json", "--mapping", str(mapping)], capsys)
    assert labels(out) == want
    rows = json.loads(out)["methods"]
    assert any(r["obfuscated"] and r["obfuscated"].startswith("z.c") for r in rows)
    assert all("obfuscated" in r for r in rows)


def test_tree_and_dump_show_the_originals(
    pair: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    plain, hidden, mapping = pair
    for cmd in (["tree"], ["-r"], ["tree", "--json"]):
        want = run([*cmd, str(plain)], capsys)
        got = run([*cmd, str(hidden), "--mapping", str(mapping)], capsys)
        if cmd[-1] == "--json":
            assert '"obfuscated": "z.c' in got and '"renamed": true' in got
            got = got.replace('"renamed": true', '"renamed": false')
            assert re.sub(r', "obfuscated": "[^"]*"', "", got) == want
        else:
            assert got == want


def test_two_obfuscations_match_by_shown_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A diff of two release builds matches methods after deobfuscation: renamed from
    `x.c3.m1` to `y.c3.m1` they are the same method."""
    trace = generate(records=3000, threads=2, seed=3)
    shown = []
    for prefix in ("x", "y"):
        obf, text = obfuscate(trace, prefix)
        write(obf, tmp_path / f"{prefix}.trace", variant="regular")
        (tmp_path / f"{prefix}.txt").write_text(text)
        argv = ["stats", str(tmp_path / f"{prefix}.trace"), "--json"]
        raw = labels(run(argv, capsys))
        shown.append(labels(run([*argv, "--mapping", str(tmp_path / f"{prefix}.txt")], capsys)))
        assert any(label.startswith(f"{prefix}.c") for label in raw)
    assert shown[0] == shown[1]


def test_info_report_and_viewer_take_it(
    pair: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, hidden, mapping = pair
    run(["info", str(hidden), "--mapping", str(mapping)], capsys)
    page = tmp_path / "r.html"
    run(["report", str(hidden), "--mapping", str(mapping), "-o", str(page)], capsys)
    answers = report_answers(page.read_text())
    methods = next(v for k, v in answers.items() if k.startswith("/api/methods"))
    assert any(x.startswith("z.c") for x in methods["obfuscated"])
    assert not any(x.startswith("z.c") for x in methods["label"])
    session = Session(__import__("traceview.readers", fromlist=["load"]).load(hidden))
    rename = MappingRename(read_mapping(mapping))
    answer = methods_answer(session, session.query(rename=rename))
    assert answer["obfuscated"] and any(x.startswith("z.c") for x in answer["obfuscated"])
    assert not any(methods_answer(session)["obfuscated"])


def test_bad_mapping_is_one_line(
    pair: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, hidden, _ = pair
    assert cli_main(["stats", str(hidden), "--mapping", str(tmp_path / "none.txt")]) == 2
    assert "--mapping" in capsys.readouterr().err
    junk = tmp_path / "junk.txt"
    junk.write_text("not a mapping\n")
    assert cli_main(["stats", str(hidden), "--mapping", str(junk)]) == 2
    assert "not a ProGuard/R8 mapping file" in capsys.readouterr().err


MINIFIED = (
    """\
# compiler: R8
# kotlin.jvm.functions.Function2 is e.e0.b.p; Entry is kept
kotlin.jvm.functions.Function2 -> e.e0.b.p:
specto.core.internal.plugins.EntryPlugin -> specto.core.internal.plugins.f:
# {"id":"sourceFile","fileName":"EntryPlugin.kt"}
    int count -> a
    1:5:specto.proto.EntryGenerated$Entry createEntry(java.lang.String,"""
    """kotlin.jvm.functions.Function2):10:14 -> f
    6:6:void inlinedThing():40:40 -> j
    6:6:void record(java.lang.String,kotlin.jvm.functions.Function2):20 -> j
    7:7:void recordAgain(java.lang.String,kotlin.jvm.functions.Function2):21 -> j
kotlinx.coroutines.DispatchedTask -> kotlinx.coroutines.s0:
    void run() -> run
"""
)


def test_minified_corpus_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = corpus_path("sentry-vroom-specto/minified.trace")
    mapping = tmp_path / "mapping.txt"
    mapping.write_text(MINIFIED)
    rows = json.loads(run(["stats", str(trace), "--json", "--mapping", str(mapping)], capsys))
    by_name = {f"{r['class']}.{r['name']}": r for r in rows["methods"]}
    create = by_name["specto.core.internal.plugins.EntryPlugin.createEntry"]
    assert create["obfuscated"].startswith("specto.core.internal.plugins.f.f (")
    assert create["signature"] == (
        "(Ljava/lang/String;Lkotlin/jvm/functions/Function2;)Lspecto/proto/EntryGenerated$Entry;"
    )
    both = "specto.core.internal.plugins.EntryPlugin.record | " + (
        "specto.core.internal.plugins.EntryPlugin.recordAgain"
    )
    assert both in by_name  # one obfuscated method, two originals: both shown
    assert "kotlinx.coroutines.DispatchedTask.run" in by_name
    assert "specto.core.internal.plugins.EntryPlugin.inlinedThing" not in by_name


def test_diff_of_two_release_builds_matches_after_deobfuscation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each build has its own mapping: with both, no method is new or gone."""
    trace = generate(records=3000, threads=2, seed=3)
    for prefix in ("x", "y"):
        obf, text = obfuscate(trace, prefix)
        write(obf, tmp_path / f"{prefix}.trace", variant="regular")
        (tmp_path / f"{prefix}.txt").write_text(text)
    x, y = str(tmp_path / "x.trace"), str(tmp_path / "y.trace")

    def statuses(*extra: str) -> dict[str, int]:
        code = cli_main(["diff", x, "--vs", y, "--json", *extra])
        assert code in (0, 1)
        counts: dict[str, int] = json.loads(capsys.readouterr().out)["counts"]
        return counts

    raw = statuses()
    assert raw.get("new") and raw.get("gone")
    mapped = statuses("--mapping", str(tmp_path / "x.txt"), "--vs-mapping", str(tmp_path / "y.txt"))
    assert not mapped.get("new") and not mapped.get("gone")


def test_dmtracedump_shows_the_originals(
    pair: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    plain, hidden, mapping = pair
    for extra in ([], ["-o"]):
        want = run(["dmtracedump", str(plain), *extra], capsys)
        got = run(["dmtracedump", str(hidden), *extra, "--mapping", str(mapping)], capsys)
        assert got == want
        assert "z.c" in run(["dmtracedump", str(hidden), *extra], capsys)


def test_export_shows_the_originals(
    pair: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain, hidden, mapping = pair
    want, got = tmp_path / "plain.folded", tmp_path / "mapped.folded"
    run(["export", str(plain), "-o", str(want)], capsys)
    run(["export", str(hidden), "--mapping", str(mapping), "-o", str(got)], capsys)
    assert got.read_text() == want.read_text()


def test_sql_shows_original_names(
    pair: tuple[Path, Path, Path],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`traceview sql --mapping` queries the original names (its cached tables apart)."""
    pytest.importorskip("duckdb")
    pytest.importorskip("pyarrow")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    plain, hidden, mapping = pair
    query = "SELECT class_name, name FROM methods ORDER BY class_name, name"
    want = json.loads(run(["sql", str(plain), query, "--json"], capsys))
    got = json.loads(run(["sql", str(hidden), query, "--json", "--mapping", str(mapping)], capsys))
    raw = json.loads(run(["sql", str(hidden), query, "--json"], capsys))
    assert got == want and raw != want
