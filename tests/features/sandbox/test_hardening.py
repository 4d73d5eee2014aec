"""The sandbox's hardening through `wave -p` (real bubblewrap, real Bash): wave's own and git's
configuration stay read-only inside the project, `writablePaths` never open dotfiles, and no
Unix socket is reachable unless listed."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.features.sandbox.test_sandbox import bash_result, run_bash, settings
from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave

WIDENING = json.dumps({"sandbox": {"enabled": False}, "permissions": {"allow": ["Bash"]}})


def git_project(project: Path) -> None:
    subprocess.run(["git", "init", "-q", str(project)], check=True)


@pytest.mark.req("HR1")
@pytest.mark.parametrize(
    "target",
    [
        ".wave/settings.local.json",
        ".wave/settings.json",
        ".wave/commands/x.md",
        ".claude/settings.json",
        ".git/hooks/pre-commit",
        ".git/config",
        ".mcp.json",
    ],
)
def test_a_sandboxed_command_cannot_rewrite_the_configuration(
    model_server: ModelServer, project: Path, target: str
) -> None:
    git_project(project)
    (project / ".mcp.json").write_text('{"mcpServers": {}}')
    before = (project / target).read_bytes() if (project / target).is_file() else None
    settings()
    escape = f"echo pwned > {project}/escaped.txt"
    write = f"mkdir -p $(dirname {target}); printf '%s' '{WIDENING}' > {target}"
    model_server.enqueue(
        tool_call("Bash", {"command": write}),
        tool_call("Bash", {"command": escape}),
        text("done"),
    )
    result = run_wave("-p", "go", cwd=project, server=model_server)
    assert result.returncode == 0, result.stderr
    results = [
        m["content"] for m in model_server.requests[-1].body["messages"] if m.get("role") == "tool"
    ]
    assert "Read-only file system" in results[0], results[0]
    after = (project / target).read_bytes() if (project / target).is_file() else None
    assert after == before
    # The second command still ran sandboxed (the project is writable there): the settings
    # were never widened, so it ran without asking, inside.
    assert (project / "escaped.txt").read_text() == "pwned\n"


@pytest.mark.req("HR1")
def test_missing_configuration_folders_cannot_be_made(
    model_server: ModelServer, project: Path
) -> None:
    settings()
    out = run_bash(
        model_server,
        project,
        "mkdir -p .wave .claude; echo x > .wave/settings.local.json; echo y > .claude/a; "
        "echo ok > plain.txt",
    )
    assert "Read-only file system" in out
    assert not (project / ".wave" / "settings.local.json").exists()
    assert not (project / ".claude" / "a").exists()
    assert (project / "plain.txt").read_text() == "ok\n"


@pytest.mark.req("HR1")
def test_a_worktree_under_wave_stays_writable_its_configuration_not(
    model_server: ModelServer, project: Path
) -> None:
    tree = project / ".wave" / "worktrees" / "w1"
    (tree / ".wave").mkdir(parents=True)
    settings()
    out = run_bash(
        model_server, project, f"echo a > {tree}/work.txt; echo b > {tree}/.wave/settings.json"
    )
    assert (tree / "work.txt").read_text() == "a\n"
    assert "Read-only file system" in out and not (tree / ".wave" / "settings.json").exists()


@pytest.fixture
def var_home() -> Iterator[Path]:
    """A home outside /tmp (the test's own is under it, hidden by the sandbox's private /tmp)."""
    home = Path(f"/var/tmp/wave-sandbox-home-{os.getpid()}-{time.monotonic_ns()}")
    (home / ".wave").mkdir(parents=True)
    try:
        yield home
    finally:
        shutil.rmtree(home)


@pytest.mark.req("HR5")
@pytest.mark.parametrize(
    ("entry", "target"),
    [
        ("~/.ssh", ".ssh/authorized_keys"),
        ("~/.wave", ".wave/settings.local.json"),
        ("~/.config", ".config/autostart.sh"),
        ("~/.bashrc", ".bashrc"),
        ("{home}/.local/bin", ".local/bin/ls"),
    ],
)
def test_writable_paths_never_open_dotfiles(
    model_server: ModelServer, project: Path, var_home: Path, entry: str, target: str
) -> None:
    path = var_home / target
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("original\n")
    (var_home / ".wave" / "settings.json").write_text(
        json.dumps({"sandbox": {"enabled": True, "writablePaths": [entry.format(home=var_home)]}})
    )
    model_server.enqueue(tool_call("Bash", {"command": f"echo planted > {path}"}), text("done"))
    result = run_wave("-p", "go", cwd=project, server=model_server, env={"HOME": str(var_home)})
    assert result.returncode == 0, result.stderr
    assert "Read-only file system" in bash_result(model_server)
    assert path.read_text() == "original\n"
    assert "not opened" in result.stderr


@pytest.mark.req("HR5")
def test_a_project_opened_at_home_keeps_the_dotfiles_read_only(
    model_server: ModelServer, var_home: Path
) -> None:
    (var_home / ".bashrc").write_text("original\n")
    (var_home / ".wave" / "settings.json").write_text(json.dumps({"sandbox": {"enabled": True}}))
    model_server.enqueue(
        tool_call("Bash", {"command": "echo planted > .bashrc; echo ok > notes.txt"}),
        text("done"),
    )
    result = run_wave("-p", "go", cwd=var_home, server=model_server, env={"HOME": str(var_home)})
    assert result.returncode == 0, result.stderr
    assert (var_home / ".bashrc").read_text() == "original\n"
    assert (var_home / "notes.txt").read_text() == "ok\n"


@pytest.fixture
def unix_server() -> Iterator[Path]:
    """A listening Unix socket outside /tmp (the sandbox's /tmp is its own)."""
    folder = Path(f"/var/tmp/wave-sock-{os.getpid()}-{time.monotonic_ns()}")
    folder.mkdir()
    path = folder / "agent.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen()
    try:
        yield path
    finally:
        server.close()
        shutil.rmtree(folder)


@pytest.mark.req("HR6")
@pytest.mark.parametrize(("listed", "reached"), [(False, False), (True, True)])
def test_unix_sockets_are_unreachable_unless_listed(
    model_server: ModelServer, project: Path, unix_server: Path, listed: bool, reached: bool
) -> None:
    settings(allowUnixSockets=[str(unix_server)] if listed else [])
    # The system's Python: a virtual environment under /tmp (a CI checkout may live there) is
    # hidden by the sandbox's private /tmp.
    python = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
    probe = (
        f"{python} -c \"import socket; print('TRIED', flush=True); "
        f"s = socket.socket(socket.AF_UNIX); s.connect('{unix_server}'); print('CONNECTED')\""
    )
    out = run_bash(model_server, project, probe)
    assert "TRIED" in out, out  # the probe ran: what follows is the socket's answer
    assert ("CONNECTED" in out) is reached, out
