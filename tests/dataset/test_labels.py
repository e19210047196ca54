"""Labels (issue 21, dataset/labels.py): one rule for every label key and value — no path
separator, NUL or other control character, `..`, or over-long text; app and build only
folder-safe characters — refused in one line before anything is written, by every front end
that takes labels: `dataset add` (exit 2), `dataset.add`, the Spark ingest (before Spark is
asked anything) and the service's uploads (400, tests/service/test_service_dataset.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from support.datasets import write_traces
from traceview.cli import main
from traceview.dataset import labels as labelling

pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")

BAD = [
    ("branch", "feature/x"),  # a separator in a value that names no folder
    ("device", "a\\b"),
    ("ci_job", "x/../y"),
    ("branch", ".."),
    ("branch", "a..b"),
    ("device", "a\x00b"),  # NUL
    ("device", "a\tb"),
    ("device", "a\x1b[31m"),
    ("device", " px7"),
    ("branch", "x" * 129),
    ("branch", ""),
    ("app", "../x"),
    ("app", ".."),
    ("app", "my app"),
    ("build", "a/b"),
    ("build", "x" * 65),
    ("Branch", "x"),  # keys: the same rule
    ("a/b", "x"),
    ("a\\b", "x"),
    ("a\x00", "x"),
    ("..", "x"),
    ("k" * 33, "x"),
    ("date", "2020-01-01"),
]
GOOD = {
    "app": "com.example",
    "build": "101-rc1+2",
    "branch": "feature-x",
    "device": "Pixel 8 (arm64)",
    "ci_job": "42",
}


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_traces(tmp_path_factory.mktemp("traces"), [1])[0]


@pytest.mark.parametrize(("name", "value"), BAD)
def test_the_rule_refuses_in_one_line(name: str, value: str) -> None:
    with pytest.raises(ValueError) as caught:
        labelling.check({name: value})
    text = str(caught.value)
    assert "\n" not in text and text.isprintable(), text


def test_the_rule_takes_ordinary_labels() -> None:
    assert labelling.check({**GOOD, "device": None}) == tuple(
        sorted((k, v) for k, v in GOOD.items() if k != "device")
    )


@pytest.mark.parametrize(("name", "value"), BAD)
def test_dataset_add_cli_refuses_with_exit_2(
    name: str, value: str, trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "ds"
    flags = [f"--{name}", value] if name in ("app", "build") else ["--label", f"{name}={value}"]
    assert main(["dataset", "add", str(root), str(trace), *flags]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "label" in err, err
    assert not root.exists()


@pytest.mark.parametrize(("name", "value"), BAD)
def test_python_api_refuses_before_writing(
    name: str, value: str, trace: Path, tmp_path: Path
) -> None:
    from traceview.dataset.add import add

    root = tmp_path / "ds"
    with pytest.raises(ValueError):
        add(root, [trace], {name: value})
    assert not root.exists()


class _Untouchable:
    """A Spark session that fails the test when anything is asked of it."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"Spark was asked for {name} before the labels were checked")


@pytest.mark.parametrize(("name", "value"), BAD)
def test_spark_ingest_refuses_before_spark_runs(name: str, value: str, tmp_path: Path) -> None:
    from traceview.dataset.spark import ingest

    root = tmp_path / "ds"
    with pytest.raises(ValueError):
        ingest(_Untouchable(), [str(tmp_path)], str(root), {name: value})
    assert not root.exists()
