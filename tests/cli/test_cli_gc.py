"""A one-shot command (`-r`, `dmtracedump`, `stats`, `info`) runs with Python's cyclic
collector off (it frees its arrays by reference counts and leaves at once), and gives it back
when it returns: a caller in the same process (the tests, an embedding tool) keeps it."""

from __future__ import annotations

import gc
from collections.abc import Callable
from pathlib import Path

import pytest

from traceview.cli import main
from traceview.synth import generate
from traceview.writer import write


@pytest.mark.parametrize("command", ["-r", "dmtracedump", "stats", "info"])
def test_the_collector_is_off_while_a_one_shot_command_runs_and_back_after(
    tmp_path: Path,
    command: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "t.trace"
    write(generate(records=2000, threads=2, seed=5), str(path))
    import traceview.cli as cli

    seen: list[bool] = []
    entry = cli._entry

    def watching(module: str) -> Callable[[list[str]], int]:
        run = entry(module)

        def wrapped(argv: list[str]) -> int:
            seen.append(gc.isenabled())
            return run(argv)

        return wrapped

    monkeypatch.setattr(cli, "_entry", watching)
    assert gc.isenabled()
    assert main([command, str(path)]) == 0
    assert seen == [False]
    assert gc.isenabled()
    assert main(["convert", str(path), str(tmp_path / "o.trace"), "--to", "streaming"]) == 0
    assert seen == [False, True]  # any other command keeps it
    capsys.readouterr()
