"""The command line starts numpy without OpenBLAS's thread pool: no command does linear
algebra, and the pool's threads spin for a tenth of a second of CPU after they start (on this
machine 0.09 s of every command's CPU, and the second core meanwhile). A user's own setting
stands."""

from __future__ import annotations

import os
import subprocess
import sys

PROBE = "import traceview.cli, os; print(os.environ.get('OPENBLAS_NUM_THREADS'))"


def child(extra: dict[str, str]) -> str:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    run = subprocess.run(
        [sys.executable, "-c", PROBE], env={**env, **extra}, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


def test_one_blas_thread() -> None:
    assert child({}) == "1"


def test_the_users_setting_stands() -> None:
    assert child({"OPENBLAS_NUM_THREADS": "4"}) == "4"
