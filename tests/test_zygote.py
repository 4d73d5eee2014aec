"""The tests' `wave` starter (`tests/zygote.py`): a command forked from the worker's zygote is
what a spawned `python -m wave_tui` is — output, exit status, standard input, environment —
and commands whose interpreter would start differently still get a real process."""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import pytest

from tests import zygote
from tests.model_server import ModelServer, text, tool_call
from tests.processes import alive
from tests.wave_cli import WAVE, run_wave

pytestmark = pytest.mark.req("CB4")

ROOT = Path(__file__).resolve().parent.parent


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), **extra}


def test_run_wave_forks_the_command_from_the_zygote(
    model_server: ModelServer, project: Path
) -> None:
    """The `wave` that runs the tool is a child of the worker's zygote, not of the test."""
    report = project / "parent.txt"
    # $PPID of the tool's shell is wave; the 4th field of wave's /proc stat is wave's parent.
    command = f"cut -d' ' -f4 /proc/$PPID/stat > {report}"
    model_server.enqueue(tool_call("Bash", {"command": command}), text("ok"), text("nothing"))
    proc = run_wave(
        "-p", "go", "--permission-mode", "bypassPermissions", cwd=project, server=model_server
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "ok\n"
    parent = int(report.read_text())
    assert parent != os.getpid()
    assert parent == zygote.current_pid()


@pytest.mark.parametrize(
    "args", [("--version",), ("--bogus",), ("memory", "--help"), ("-p", "hi", "-c", "-r", "x")]
)
def test_a_forked_command_prints_and_ends_as_a_spawned_one(
    args: tuple[str, ...], project: Path
) -> None:
    env = _env()
    forked = zygote.run(WAVE, args, cwd=project, env=env, input=None, timeout=60)
    spawned = subprocess.run(
        [*WAVE, *args], cwd=project, env=env, capture_output=True, stdin=subprocess.DEVNULL
    )
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        spawned.returncode,
        spawned.stdout,
        spawned.stderr,
    )
    assert forked.args == [*WAVE, *args]


def test_standard_input_and_environment_reach_the_command(
    model_server: ModelServer, project: Path
) -> None:
    model_server.enqueue(text("read it"), text("nothing"))
    env = model_server.env(WAVE_MODEL="smart")
    proc = zygote.run(
        WAVE, ["-p"], cwd=project, env=_env(**env), input=b"the blue door\n", timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == b"read it\n"
    first = model_server.requests[0].body
    assert first["model"] == "smart"
    assert "the blue door" in str(first["messages"][-1]["content"])


def test_a_command_past_its_timeout_is_killed_with_its_output(
    model_server: ModelServer, project: Path
) -> None:
    """As `subprocess.run`: TimeoutExpired once the time is up; the zygote serves on."""
    hold = threading.Event()
    model_server.enqueue(text("never finished", hold=hold), text("nothing"))
    try:
        with pytest.raises(subprocess.TimeoutExpired) as caught:
            run_wave("-p", "hi", cwd=project, server=model_server, timeout=2)
    finally:
        hold.set()
    assert caught.value.cmd == [*WAVE, "-p", "hi"]
    assert isinstance(caught.value.stderr, str)  # text, as `text=True` gives it
    assert run_wave("--version", cwd=project).stdout.startswith("wave ")


def test_interpreter_variables_get_a_real_process(project: Path) -> None:
    """`PYTHONPROFILEIMPORTTIME` is read as the interpreter starts: the zygote has started
    already, so the command runs as its own interpreter and reports every import."""
    proc = run_wave("--version", cwd=project, env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert proc.returncode == 0
    assert "| wave_tui.cli.main" in proc.stderr
    assert zygote.current_pid() is not None  # the zygote was there, and was not used


def test_a_killed_command_reports_its_signal(model_server: ModelServer, project: Path) -> None:
    """A command that dies of a signal has a negative return code, as from `subprocess`."""
    model_server.enqueue(tool_call("Bash", {"command": "kill -KILL $PPID"}))
    proc = run_wave(
        "-p", "go", "--permission-mode", "bypassPermissions", cwd=project, server=model_server
    )
    assert proc.returncode == -9, proc.stderr


def test_a_changed_source_gets_a_new_zygote(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the zygote imported must not mix with an edited module a child imports later."""
    run_wave("--version", cwd=project)
    before = zygote.current_pid()
    state = zygote._source_state()
    monkeypatch.setattr(zygote, "_source_state", lambda: [*state, ("edited.py", 1, 1)])
    proc = run_wave("--version", cwd=project)
    assert proc.returncode == 0
    assert zygote.current_pid() not in (None, before)
    assert run_wave("--version", cwd=project).returncode == 0
    assert zygote.current_pid() not in (None, before)  # the new state is the zygote's now
    assert before is not None
    assert not alive(before)  # the replaced one, idle, has ended
