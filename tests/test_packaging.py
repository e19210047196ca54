"""A fresh Debian/Ubuntu machine: the README's two commands need only `python3`, `.ci/run` runs
the README's test command verbatim and installs what the tests use, the metadata is pinned and
licensed, and the bundled demo trace does not dominate the wheel."""

from __future__ import annotations

import os
import platform
import re
import shutil
import stat
import subprocess
import tomllib
import zlib
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CI = ROOT / ".ci" / "run"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
BARE_PYTHON = re.compile(r"(?<![\w/.-])python(?![\w.-])")  # `python`, not python3 or .venv/...
# what each program a test looks up with shutil.which comes in on Debian
DEBIAN_PACKAGE = {
    "dmtracedump": "dmtracedump",
    "dot": "graphviz",
    "go": "golang-go",
    "adb": "adb",
    "node": "nodejs",
    "protoc": "protobuf-compiler",
    "java": "openjdk-17-jre-headless",
}
ESSENTIAL = {"bash", "sh"}  # on every Debian system


def readme_commands() -> list[str]:
    """The README's ```sh blocks of one line: [run the demo, run the tests]."""
    text = (ROOT / "README.md").read_text()
    return [b.strip() for b in re.findall(r"```sh\n(.*?)```", text, re.S) if "\n" not in b.strip()]


def ci_code_lines() -> list[str]:
    return [ln for ln in CI.read_text().splitlines() if not ln.lstrip().startswith("#")]


def ci_packages() -> set[str]:
    """The packages `.ci/run` installs: its packages=(...) list and the ones it adds when a
    command is missing (`missing+=(name)`)."""
    text = CI.read_text()
    m = re.search(r"^packages=\((.*?)\)", text, re.M)
    assert m, "no packages=(...) line in .ci/run"
    return set(m.group(1).split()) | set(re.findall(r"missing\+=\((\w[\w.+-]*)\)", text))


def test_readme_commands_need_only_python3() -> None:
    demo, tests = readme_commands()[:2]
    assert demo.endswith("traceview demo") and tests.endswith("-m pytest")
    for command in (demo, tests):
        steps = [s.strip() for s in command.split("&&")]
        # Debian's python3 refuses `pip install` outside a venv and has no `python`
        assert steps[0] == "python3 -m venv .venv", command
        assert all(s.startswith(".venv/bin/") for s in steps[1:]), command


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    tests = readme_commands()[1]
    assert any(tests in line for line in ci_code_lines()), f".ci/run does not run: {tests}"


def test_ci_needs_no_bare_python() -> None:
    assert not [ln for ln in ci_code_lines() if BARE_PYTHON.search(ln)]


def test_ci_installs_every_program_the_tests_look_up() -> None:
    wanted = {"python3", "python3-venv", "dmtracedump", "graphviz", "chromium", "golang-go", "adb"}
    wanted |= {"openjdk-17-jre-headless"}  # Spark's JVM (tests/dataset/test_spark.py)
    wanted |= {"nodejs", "npm"}
    assert wanted <= ci_packages()
    for path in (ROOT / "tests").rglob("*.py"):
        text = path.read_text()
        for program in re.findall(r"which\(\s*[\"']([\w.+-]+)[\"']", text):
            if program not in ESSENTIAL:
                assert DEBIAN_PACKAGE.get(program) in ci_packages(), f"{path.name}: {program}"
        if "/usr/bin/chromium" in text:
            assert "chromium" in ci_packages()


def _fake_machine(tmp_path: Path, *, uid: int, missing: str, pytest_status: int) -> Path:
    """A copy of .ci/run whose python3, dpkg-query, id, sudo and apt-get are logging stubs."""
    (tmp_path / "repo" / ".ci").mkdir(parents=True)
    shutil.copy(CI, tmp_path / "repo" / ".ci" / "run")
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    log = tmp_path / "log"
    stubs = {
        "python": f'echo "bare python $*" >>{log}; exit 99',
        "python3": f"""echo "python3 $*" >>{log}
mkdir -p .venv/bin
printf '#!/bin/sh\\necho "venv pip $*" >>{log}\\n' >.venv/bin/pip
printf '#!/bin/sh\\necho "venv python $*" >>{log}\\nexit {pytest_status}\\n' >.venv/bin/python
chmod +x .venv/bin/pip .venv/bin/python""",
        "dpkg-query": f'for pkg; do :; done; case " {missing} " in *" $pkg "*) exit 1;; esac; '
        'echo "install ok installed"',
        "id": f"echo {uid}",
        "sudo": f'echo "sudo $*" >>{log}; [ "$1" = -n ] && shift; exec "$@"',
        "apt-get": f'echo "apt-get $*" >>{log}',
        "npm": f'echo "npm $*" >>{log}',
    }
    for name, body in stubs.items():
        stub = bin_ / name
        stub.write_text(f"#!/bin/sh\n{body}\n")
        stub.chmod(stub.stat().st_mode | stat.S_IEXEC)
    return tmp_path


def _run_ci(machine: Path) -> tuple[int, str, list[str]]:
    env = {**os.environ, "PATH": f"{machine / 'bin'}:/usr/bin:/bin", "CI": "true"}
    env["HOME"] = str(machine / "home")
    env.pop("TRACEVIEW_TEST_NODE", None)
    env.pop("TRACEVIEW_TEST_TOOLS", None)
    done = subprocess.run(
        ["bash", str(machine / "repo" / ".ci" / "run")],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    log = machine / "log"
    return done.returncode, done.stderr, log.read_text().splitlines() if log.exists() else []


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize(("status", "want"), [(0, 0), (1, 1), (5, 1)])
def test_ci_fails_when_pytest_fails_or_finds_no_tests(
    tmp_path: Path, status: int, want: int
) -> None:
    machine = _fake_machine(tmp_path, uid=1000, missing="", pytest_status=status)
    code, err, log = _run_ci(machine)
    assert code == want, err
    tools = [f"python3 -m venv {tmp_path}/home/.cache/traceview-test-tools/venv"]
    assert log == [
        f"npm install --prefix {tmp_path}/home/.cache/traceview-test-node --no-audit --no-fund "
        "--no-save -q speedscope@1.25.0 pprof-format@2.3.2",
        *(tools if platform.machine() == "x86_64" else []),  # simpleperf (a stub: not made)
        "python3 -m venv .venv",
        "venv pip install -e .[test]",
        "venv python -m pytest",
    ]
    assert ("no tests" in err) == (status == 5)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("uid", [0, 1000])
def test_ci_installs_missing_packages_with_sudo_only_when_not_root(
    tmp_path: Path, uid: int
) -> None:
    machine = _fake_machine(tmp_path, uid=uid, missing="dmtracedump adb", pytest_status=0)
    code, err, log = _run_ci(machine)
    assert code == 0, err
    want = []
    for step in ("update -qq", "install -y -qq --no-install-recommends dmtracedump adb"):
        want += [f"sudo -n apt-get {step}"] if uid else []
        want += [f"apt-get {step}"]
    assert [line for line in log if "apt-get" in line] == want


def test_lint_and_type_tools_pinned_exactly() -> None:
    extras = PYPROJECT["project"]["optional-dependencies"]
    pins = {re.split(r"[=<>~!\[ ]", r)[0]: r for r in extras["test"]}
    for tool in ("ruff", "mypy", "import-linter"):
        assert re.fullmatch(rf"{tool}==[\d.]+", pins[tool]), pins[tool]
        try:
            installed = metadata.version(tool)
        except metadata.PackageNotFoundError:
            continue
        assert pins[tool] == f"{tool}=={installed}", "the environment is not the pinned one"
    assert all(re.search(r"[=<>~]=?\d", r) for r in extras["test"] if "[" not in r)


def test_optional_extras_are_part_of_the_test_run() -> None:
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert {re.split(r"[=<>~]", r)[0] for r in extras["data"]} == {"duckdb", "pyarrow", "pandas"}
    assert {re.split(r"[=<>~]", r)[0] for r in extras["serve"]} == {"python-multipart"}
    assert "traceview[data,serve]" in extras["test"]


def test_spdx_license_and_license_file() -> None:
    project = PYPROJECT["project"]
    assert project["license"] == "Apache-2.0"  # a string: the TOML table is deprecated
    assert project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text
    requires = PYPROJECT["build-system"]["requires"]
    assert any(re.fullmatch(r"setuptools>=(\d+).*", r) for r in requires)
    [setuptools] = [r for r in requires if r.startswith("setuptools")]
    assert int(setuptools.split(">=")[1].split(".")[0]) >= 77  # PEP 639 license metadata


def test_demo_trace_does_not_dominate_the_wheel() -> None:
    """A wheel deflates each file: the demo's share of the deflated package stays under half."""
    package = ROOT / "src" / "traceview"
    files = [p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    size = {p: len(zlib.compress(p.read_bytes(), 6)) for p in files}
    demo = [p for p in files if p.parent.name == "data" and p.name.startswith("demo.trace")]
    assert [p.name for p in demo] == ["demo.trace.gz"]
    assert size[demo[0]] < sum(size.values()) / 2, {p.name: size[p] for p in demo}
