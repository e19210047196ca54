"""`traceview diff --dataset ROOT --base build=100 --vs build=101` compares the dataset's runs
without reading a trace, and says per method and per thread what `traceview diff` of the same
trace files says (the call paths need the traces' trees: the dataset's diff has none)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.datasets import write_traces
from traceview.cli import main

pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path], list[Path]]:
    folder = tmp_path_factory.mktemp("runs")
    base = write_traces(folder / "base", [31, 32, 33], records=6000, threads=3)
    cand = write_traces(folder / "cand", [34, 35, 36], records=6000, threads=3)
    root = folder / "ds"
    assert main(["dataset", "add", str(root), *map(str, base), "--build", "100", "-q"]) == 0
    flags = ["--build", "101", "--label", "branch=main", "-q"]
    assert main(["dataset", "add", str(root), *map(str, cand), *flags]) == 0
    return root, base, cand


def diff_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    capsys.readouterr()
    status = main(["diff", *argv, "--json", "--min-time", "0"])
    out: dict[str, object] = json.loads(capsys.readouterr().out)
    return status, out


def test_a_diff_of_the_dataset_equals_a_diff_of_the_traces(
    runs: tuple[Path, list[Path], list[Path]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, base, cand = runs
    for clock in ([], ["--clock", "wall"], ["--clock", "cpu"]):
        want_status, want = diff_json([*map(str, base), "--vs", *map(str, cand), *clock], capsys)
        argv = ["--dataset", str(root), "--base", "build=100", "--vs", "build=101", "branch=main"]
        status, got = diff_json([*argv, *clock], capsys)
        assert status == want_status
        for side, paths in (("baseline", base), ("candidate", cand)):
            assert got.pop(side) == [p.name for p in paths]  # the runs, by their names
            wanted = want.pop(side)
            assert isinstance(wanted, list)
            assert [Path(p).name for p in wanted] == [p.name for p in paths]
        assert "paths" in want and "paths" not in got  # the call paths need the traces' trees
        want.pop("paths")
        want.pop("paths_left_out")
        assert got == want, clock


def test_bad_choices_are_one_line(
    runs: tuple[Path, list[Path], list[Path]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, base, _ = runs
    for argv, says in (
        (["--base", "build=999", "--vs", "build=101"], "no trace"),
        (["--base", "build", "--vs", "build=101"], "name=value"),
        (["--base", "Build=1", "--vs", "build=101"], "bad label name"),
        (["--base", "build=100", "--vs", "build=101", "--thread", "main"], "--thread"),
        ([str(base[0]), "--vs", "build=101"], "--base"),
    ):
        capsys.readouterr()
        assert main(["diff", "--dataset", str(root), *argv]) == 2, argv
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and says in err, (argv, err)
    assert main(["diff", str(base[0]), "--base", "build=1", "--vs", str(base[1])]) == 2
