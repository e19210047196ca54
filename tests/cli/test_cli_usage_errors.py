"""A usage error is one line on stderr, exit status 2, like every other error (issue 18: a
file named `-r` printed argparse's three-line usage block)."""

from __future__ import annotations

from pathlib import Path

import pytest

from traceview.cli import main


@pytest.mark.parametrize(
    "argv",
    [["-r"], ["info", "-r"], ["stats", "-r"], ["-r", "--clock", "sun"], ["export"], ["sql"]],
)
def test_usage_errors_are_one_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "usage:" not in err, err
    assert err.startswith("traceview ") and "--help" in err


def test_file_named_like_an_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["info", "-r"]) == 2
    assert "./-name" in capsys.readouterr().err  # says how to name such a file
    Path("-r").write_bytes(b"not a trace")
    assert main(["info", "./-r"]) == 2  # read: one line about the file itself
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "-r" in err
