"""The compiled kernels' module is imported only by the work that runs a kernel."""

from __future__ import annotations

import subprocess
import sys

from traceview.synth import generate
from traceview.writer import write


def test_info_does_not_import_numba(tmp_path) -> None:
    path = tmp_path / "t.trace"
    write(generate(records=2000, threads=2, seed=1), str(path))
    code = (
        "import sys\n"
        "from traceview.cli import main\n"
        f"status = main(['info', {str(path)!r}])\n"
        "assert status == 0, status\n"
        "assert 'numba' not in sys.modules, 'numba imported'\n"
        "assert 'traceview.analysis.jit' not in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
