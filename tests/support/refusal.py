"""The one-line refusal of the command line (exit status 2, one `traceview: ...` line on
stderr, no traceback), checked the same way by every test that needs it."""

from __future__ import annotations

import pytest


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one line a refused command prints (status 2)."""
    from traceview.cli import main

    assert main(argv) == 2, argv
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("traceview: "), (argv, err)
    return err[0]
