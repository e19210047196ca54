"""`traceview record` against a fake adb on PATH: the commands sent, the trace pulled and
checked, and one line for each failure (no adb, no device, several, app not running or not
debuggable, a file still being written, an empty trace); Ctrl-C stops the profiler."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from support.fakeadb import FakeAdb, install
from traceview.cli import main as cli_main
from traceview.readers import load
from traceview.synth import generate
from traceview.writer import write

PKG = "com.example.app"
# The texts the framework prints (ActivityManagerService.profileControl / enforceDebuggable).
UNKNOWN_PROCESS = (
    "Exception occurred while executing 'profile':\n"
    f"java.lang.IllegalArgumentException: Unknown process: {PKG}\n"
    "\tat com.android.server.am.ActivityManagerService.profileControl("
    "ActivityManagerService.java:16391)"
)
NOT_DEBUGGABLE = (
    "Exception occurred while executing 'profile':\n"
    f"java.lang.SecurityException: Process not debuggable: {PKG}\n"
    "\tat com.android.server.am.ActivityManagerService.enforceDebuggable("
    "ActivityManagerService.java:7005)"
)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("served") / "app.trace"
    write(generate(3000, threads=3, seed=5), path, variant="streaming")
    return path


@pytest.fixture
def adb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, served: Path) -> FakeAdb:
    return install(tmp_path, monkeypatch, trace=str(served))


def record(tmp_path: Path, *extra: str) -> tuple[int, Path]:
    out = tmp_path / "out.trace"
    code = cli_main(["record", PKG, "-o", str(out), "--duration", "0", *extra])
    return code, out


def test_records_a_running_app(
    adb: FakeAdb, tmp_path: Path, served: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = record(tmp_path, "--sampling", "500")
    assert code == 0
    assert out.read_bytes() == served.read_bytes()
    shell = adb.shell_commands()
    start = next(c for c in shell if c.startswith("am profile start"))
    assert start.startswith(f"am profile start --sampling 500 {PKG} /data/local/tmp/")
    device_file = start.split()[-1]
    assert f"am profile stop {PKG}" in shell
    assert shell.index(f"am profile stop {PKG}") > shell.index(start)
    assert shell[-1] == f"rm -f {device_file}"  # removed from the device after the pull
    assert ["pull", device_file] == adb.log()[-2][2:4]
    text = capsys.readouterr().out
    assert "variant   streaming" in text and "threads   3" in text
    assert "top methods by exclusive" in text and " ms " in text
    assert not list(tmp_path.glob(".*part"))


def test_cold_start(adb: FakeAdb, tmp_path: Path) -> None:
    code, _ = record(tmp_path, "--cold-start", ".MainActivity", "--streaming")
    assert code == 0
    start = next(c for c in adb.shell_commands() if c.startswith("am start"))
    assert start.startswith("am start -W -S --start-profiler /data/local/tmp/")
    assert start.endswith(f"--streaming -n {PKG}/.MainActivity")


def test_buffer_size_beyond_am_streams(
    adb: FakeAdb, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert record(tmp_path, "--buffer-size", "64")[0] == 0
    assert any("--streaming" in c for c in adb.shell_commands() if "profile start" in c)
    assert "fixed 8 MB buffer" in capsys.readouterr().err


def test_serial_is_passed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, served: Path) -> None:
    fake = install(
        tmp_path, monkeypatch, trace=str(served), devices=[["A1", "device"], ["B2", "device"]]
    )
    assert record(tmp_path, "--serial", "B2")[0] == 0
    assert all(argv[:2] == ["-s", "B2"] for argv in fake.log()[1:])


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"devices": []}, "no device: connect one"),
        ({"devices": [["A1", "device"], ["B2", "device"]]}, "several devices (A1, B2)"),
        ({"devices": [["A1", "unauthorized"]]}, "unauthorized"),
        ({"running": False}, f"{PKG} is not running"),
        ({"profile_start_output": UNKNOWN_PROCESS}, f"{PKG} is not running"),
        ({"profile_start_output": NOT_DEBUGGABLE}, f"{PKG} is not debuggable"),
        ({"growing": True}, "still being written"),
        ({"empty": True}, "empty trace"),
    ],
)
def test_failures_are_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    served: Path,
    capsys: pytest.CaptureFixture[str],
    config: dict[str, object],
    words: str,
) -> None:
    fake = install(tmp_path, monkeypatch, trace=str(served), **config)
    code, out = record(tmp_path, "--timeout", "300ms")
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert words in err[-1] and err[-1].startswith("traceview: ")
    assert not out.exists()
    shell = fake.shell_commands()
    if (
        any(c.startswith("am profile start") for c in shell)
        and "profile_start_output" not in config
    ):
        assert f"am profile stop {PKG}" in shell  # a failure after the start stops the profiler


def test_no_adb(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("ADB", raising=False)
    assert record(tmp_path)[0] == 2
    assert "adb not found" in capsys.readouterr().err


def test_unreadable_trace_is_kept_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"SLOW\x09\x00" + bytes(40))
    install(tmp_path, monkeypatch, trace=str(junk))
    code, out = record(tmp_path)
    assert code == 2
    assert "does not read" in capsys.readouterr().err
    assert (tmp_path / "out.trace.bad").exists() and not out.exists()


def test_ctrl_c_stops_the_profiler_and_keeps_the_trace(tmp_path: Path, served: Path) -> None:
    fake = install(tmp_path, trace=str(served))
    out = tmp_path / "out.trace"
    src = Path(__file__).resolve().parents[2] / "src"
    env = fake.env()
    env["PYTHONPATH"] = f"{src}{':' + env['PYTHONPATH'] if env.get('PYTHONPATH') else ''}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "traceview", "record", PKG, "-o", str(out), "--duration", "600s"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a suite started in the background of a shell inherits SIGINT ignored; Ctrl-C is
        # what this test sends, so the command gets the terminal's default back
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stderr is not None
    seen = []
    try:
        for line in proc.stderr:  # until it waits out the duration (the profiler runs)
            seen.append(line)
            if "stopping in" in line:
                break
        proc.send_signal(signal.SIGINT)
        stdout, rest = proc.communicate(timeout=120)
    finally:
        proc.kill()
    stderr = "".join(seen) + rest
    assert any(c.startswith("am profile start") for c in fake.shell_commands())
    assert proc.returncode == 0, stderr
    assert f"am profile stop {PKG}" in fake.shell_commands()
    assert "stopping early" in stderr
    assert load(out).header.variant == "streaming" and "recorded" in stdout


def test_until_enter_then_open_with_mapping(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No --duration: Enter stops; --mapping names the summary; --open hands over to view."""
    import io

    from support.obfuscate import obfuscate
    from traceview.cli import view

    obf, text = obfuscate(generate(3000, threads=2, seed=9), "q")
    served = tmp_path / "obf.trace"
    write(obf, served)
    mapping = tmp_path / "mapping.txt"
    mapping.write_text(text)
    fake = install(tmp_path, monkeypatch, trace=str(served))
    opened: list[list[str]] = []

    def open_view(argv: list[str]) -> int:
        opened.append(argv)
        return 0

    monkeypatch.setattr(view, "main", open_view)
    monkeypatch.setattr("sys.stdin", io.StringIO("\n"))
    out = tmp_path / "out.trace"
    argv = ["record", PKG, "-o", str(out), "--open", "--mapping", str(mapping)]
    assert cli_main(argv) == 0
    assert opened == [[str(out), "--mapping", str(mapping)]]
    assert f"am profile stop {PKG}" in fake.shell_commands()
    captured = capsys.readouterr()
    assert "press Enter to stop" in captured.err
    top = captured.out.split("top methods")[1]
    assert " q.c" not in top and "ms" in top
