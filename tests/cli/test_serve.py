"""`traceview serve` options: sizes like 500M/2G, and bad values as one line (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from traceview.cli import main
from traceview.cli.options import CliError
from traceview.cli.options import size_bytes as size


@pytest.mark.parametrize(
    ("text", "value"),
    [("500M", 500 << 20), ("2G", 2 << 30), ("1.5GiB", 3 << 29), ("123", 123), ("64k", 64 << 10)],
)
def test_sizes(text: str, value: int) -> None:
    assert size(text) == value


@pytest.mark.parametrize("text", ["lots", "", "-5M", "0", "2X"])
def test_bad_sizes(text: str) -> None:
    with pytest.raises(CliError):
        size(text)


@pytest.mark.parametrize("argv", [["--max-upload", "lots"], ["--port", "-5"]])
def test_bad_options_are_one_line(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", "--data", str(tmp_path), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("traceview: ") and err.count("\n") == 1


def test_listed_in_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "serve" in capsys.readouterr().out


def test_a_busy_data_folder_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from traceview.service.store import SqliteStore

    store = SqliteStore(tmp_path)
    try:
        assert main(["serve", "--data", str(tmp_path), "--port", "0"]) == 2
    finally:
        store.close()
    assert "used by another traceview serve" in capsys.readouterr().err
