"""The Bash sandbox through `wave -p` (real bubblewrap, real Bash): what is writable, the
network, what runs without asking, excluded commands and retries, no `bwrap`, the process tree,
and the extraction fork's Bash with only the memory folder writable."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import WAVE, run_wave
from wave_tui.features.sandbox.fork import fork_bash_profile
from wave_tui.files.read_state import ReadState
from wave_tui.permissions.policy import RunProfile
from wave_tui.tools.base import ToolContext
from wave_tui.tools.bash import BashTool

assert shutil.which("bwrap"), "bubblewrap is installed by .ci/run (apt-get install bubblewrap)"


def settings(**sandbox: Any) -> None:
    path = Path.home() / ".wave" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"sandbox": {"enabled": True, **sandbox}}))


def bash_result(server: ModelServer) -> str:
    results = [
        m["content"] for r in server.requests for m in r.body["messages"] if m.get("role") == "tool"
    ]
    return str(results[-1])


def run_bash(server: ModelServer, project: Path, command: str, *extra: str) -> str:
    server.enqueue(tool_call("Bash", {"command": command}), text("done"))
    result = run_wave("-p", "run it", *extra, cwd=project, server=server)
    assert result.returncode == 0, result.stderr
    return bash_result(server)


@pytest.mark.req("SB1")
@pytest.mark.req("SB4")
def test_a_sandboxed_command_runs_without_asking_in_default_mode(
    model_server: ModelServer, project: Path
) -> None:
    settings()
    out = run_bash(model_server, project, "echo made > inside.txt && cat inside.txt")
    assert "made" in out and (project / "inside.txt").read_text() == "made\n"


def test_without_the_sandbox_the_same_command_is_refused_headless(
    model_server: ModelServer, project: Path
) -> None:
    out = run_bash(model_server, project, "echo made > inside.txt")
    assert "Permission denied" in out and not (project / "inside.txt").exists()


@pytest.mark.req("SB2")
@pytest.mark.parametrize(
    "target",
    [
        "/var/tmp/wave-sandbox-{pid}.txt",
        "/usr/local/wave-sandbox-{pid}.txt",
        "{home}/.bashrc",
        "{outside}/x.txt",
        "{project}/../sibling.txt",
    ],
)
def test_writes_outside_the_project_tmp_and_writable_paths_fail(
    model_server: ModelServer, project: Path, tmp_path: Path, target: str
) -> None:
    # The test's home and tmp_path are under /tmp, which the sandbox replaces by its own: a
    # write there lands in the sandbox's private /tmp, never on the machine's.
    outside = tmp_path / "outside"
    outside.mkdir()
    settings()
    path = Path(target.format(home=Path.home(), outside=outside, project=project, pid=os.getpid()))
    try:
        out = run_bash(model_server, project, f"echo planted > {path}")
        if not str(path).startswith("/tmp/"):
            assert "Read-only file system" in out
        assert not path.exists() or "planted" not in path.read_text()
    finally:
        if path.exists() and path.read_text() == "planted\n":
            path.unlink()


@pytest.mark.req("SB2")
def test_tmp_is_private_and_writable_paths_are_writable(
    model_server: ModelServer, project: Path, tmp_path: Path
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    settings(writablePaths=[str(shared)])
    marker = f"/tmp/wave-sandbox-{os.getpid()}-{time.monotonic_ns()}"
    out = run_bash(
        model_server, project, f"echo a > {marker} && cat {marker} && echo b > {shared}/ok.txt"
    )
    assert "a" in out and (shared / "ok.txt").read_text() == "b\n"
    assert not Path(marker).exists()  # the sandbox's /tmp was its own


@pytest.mark.req("SB3")
@pytest.mark.parametrize(("network", "reached"), [("none", False), ("allow", True)])
def test_network_none_blocks_every_connection_loopback_included(
    model_server: ModelServer, project: Path, network: str, reached: bool
) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    settings(network=network)
    # bash's own /dev/tcp: nothing of the test's (its venv may be under the /tmp the sandbox
    # replaces) has to be visible inside.
    probe = f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo CONNECTED"
    try:
        out = run_bash(model_server, project, probe)
    finally:
        listener.close()
    assert ("CONNECTED" in out) is reached


@pytest.mark.req("SB4")
@pytest.mark.parametrize(
    ("excluded", "command"),
    [
        ("docker", "docker ps"),
        ("git push", "git push origin main"),
        ("git push", "echo hi && git push"),
        ("docker", "echo hi; docker run x | cat"),
    ],
)
def test_excluded_commands_ask_and_run_outside(
    model_server: ModelServer, project: Path, excluded: str, command: str
) -> None:
    settings(excludedCommands=[excluded])
    out = run_bash(model_server, project, command)
    assert "Permission denied" in out and "outside the sandbox" in out


@pytest.mark.req("SB4")
def test_a_similar_but_not_excluded_command_still_runs_sandboxed(
    model_server: ModelServer, project: Path
) -> None:
    settings(excludedCommands=["git push"])
    out = run_bash(model_server, project, "echo git push is excluded > note.txt")
    assert (project / "note.txt").exists(), out


@pytest.mark.req("SB4")
def test_the_retry_of_a_blocked_command_asks(model_server: ModelServer, project: Path) -> None:
    settings()
    command = f"echo x > /var/tmp/wave-sandbox-retry-{os.getpid()}.txt"
    model_server.enqueue(
        tool_call("Bash", {"command": command}), tool_call("Bash", {"command": command}), text("ok")
    )
    result = run_wave("-p", "run it twice", cwd=project, server=model_server)
    assert result.returncode == 0, result.stderr
    results = [
        m["content"] for m in model_server.requests[-1].body["messages"] if m.get("role") == "tool"
    ]
    assert "Read-only file system" in results[0] and "again asks" in results[0]
    assert "Permission denied" in results[1] and "blocked this command before" in results[1]


@pytest.mark.req("SB5")
def test_without_bwrap_one_warning_and_bash_asks(
    model_server: ModelServer, project: Path, tmp_path: Path
) -> None:
    settings()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "cat", "echo"):
        found = shutil.which(tool)
        assert found is not None
        (bin_dir / tool).symlink_to(found)
    model_server.enqueue(
        tool_call("Bash", {"command": "echo a > a.txt"}),
        tool_call("Bash", {"command": "echo b > b.txt"}),
        text("done"),
    )
    result = run_wave("-p", "go", cwd=project, server=model_server, env={"PATH": str(bin_dir)})
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("bwrap") == 1, result.stderr
    assert not (project / "a.txt").exists() and not (project / "b.txt").exists()


@pytest.mark.req("SB1")
@pytest.mark.parametrize("how", ["plain", "setsid", "nohup-disown"])
def test_the_sandboxed_tree_ends_with_wave_on_sigkill(
    model_server: ModelServer, project: Path, how: str
) -> None:
    settings()
    tag = 400 + ["plain", "setsid", "nohup-disown"].index(how) + os.getpid() % 1000
    start = {
        "plain": f"sleep {tag}.5",
        "setsid": f"setsid sleep {tag}.5",
        "nohup-disown": f"nohup sleep {tag}.5 >/dev/null 2>&1 & disown; sleep {tag}.5",
    }[how]
    model_server.enqueue(
        tool_call("Bash", {"command": start, "run_in_background": True}),
        tool_call("Bash", {"command": "touch started; sleep 60"}),
        text("done"),
    )
    env = {**model_server.env(), "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    proc = subprocess.Popen(
        [*WAVE, "-p", "go"],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(600):
            if (project / "started").exists():
                break
            time.sleep(0.05)
        assert (project / "started").exists()
        assert sleepers(f"{tag}.5")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    for _ in range(200):
        if not sleepers(f"{tag}.5"):
            break
        time.sleep(0.05)
    assert sleepers(f"{tag}.5") == []


def sleepers(arg: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if cmdline[:2] == [b"sleep", arg.encode()]:
            found.append(int(entry.name))
    return found


@pytest.mark.req("SB6")
@pytest.mark.parametrize("where", ["memory", "project", "home"])
def test_the_fork_bash_writes_only_in_the_memory_folder(
    project: Path, tmp_path: Path, where: str
) -> None:
    memory = Path.home() / ".wave" / "projects" / "p" / "memory"
    memory.mkdir(parents=True)
    profile = fork_bash_profile(RunProfile(), memory)
    assert profile.command_prefix
    target = {"memory": memory, "project": project, "home": Path.home()}[where] / "f.txt"
    ctx = ToolContext(
        workdir=project, read_state=ReadState(), command_prefix=profile.command_prefix
    )
    result = asyncio.run(BashTool().run({"command": f"echo x > {target}"}, ctx))
    assert target.exists() is (where == "memory"), result.content


@pytest.mark.req("SB2")
@pytest.mark.parametrize("entry", ["/", "~", "{home}", "~/..", "{home}/../", "relative/dir"])
def test_writable_paths_cannot_open_the_root_or_the_home_folder(
    model_server: ModelServer, project: Path, entry: str
) -> None:
    # A home outside /tmp (the test's own is under it, hidden by the sandbox's private /tmp).
    home = Path(f"/var/tmp/wave-sandbox-home-{os.getpid()}-{time.monotonic_ns()}")
    (home / ".wave").mkdir(parents=True)
    try:
        writable = [entry.format(home=home)]
        settings_file = home / ".wave" / "settings.json"
        settings_file.write_text(
            json.dumps({"sandbox": {"enabled": True, "writablePaths": writable}})
        )
        rc = home / ".profile-planted"
        model_server.enqueue(tool_call("Bash", {"command": f"echo planted > {rc}"}), text("done"))
        result = run_wave("-p", "run it", cwd=project, server=model_server, env={"HOME": str(home)})
        assert result.returncode == 0, result.stderr
        assert "Read-only file system" in bash_result(model_server)
        assert not rc.exists()
    finally:
        shutil.rmtree(home)
