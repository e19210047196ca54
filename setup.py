"""The install's one step beyond copying the package: building the native objects of the
commands' kernels on this machine (`traceview.cli.precompile.build_native`), so that a fresh
install's first `traceview -r`, `dmtracedump`, `stats`, `info`, viewer or simpleperf read
loads them instead of compiling (seconds per kernel). Everything else is in pyproject.toml.

An editable install builds none (the kernels' objects are cached on first use). A build
that fails leaves the install as it was before this step: the objects are then built on
first use, as without it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithNative(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False) or os.environ.get("TRACEVIEW_NO_NATIVE"):
            return
        lib = Path(self.build_lib).resolve()
        dest = lib / "traceview" / "analysis" / "kernels" / "native"
        # (pip's isolated build environment is on the path through PYTHONPATH too)
        path = os.pathsep.join(filter(None, [str(lib), os.environ.get("PYTHONPATH")]))
        env = {**os.environ, "PYTHONPATH": path}
        cmd = [sys.executable, "-m", "traceview.cli.precompile", "--native", str(dest)]
        try:
            done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.SubprocessError) as exc:
            print(f"traceview: native kernels not built at install ({exc})", file=sys.stderr)
            return
        if done.returncode:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            print(f"traceview: native kernels not built at install: {last}", file=sys.stderr)


setup(cmdclass={"build_py": BuildWithNative})
