"""Ctrl+Z in a real terminal: the app stops as a shell job, `fg` brings it back, `/exit` ends
it (tmux, an interactive bash with job control, the standalone model server)."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pytest

from tests.tui.test_tmux import REPO_ROOT, Tmux, model_server_process, tmux

__all__ = ["model_server_process", "tmux"]  # the fixtures this module borrows


@pytest.mark.req("FH13")
def test_ctrl_z_suspends_fg_resumes_and_exit_quits(
    tmux: Tmux, model_server_process: str, tmp_path: Path
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    exit_file = tmp_path / "exit-code"
    env = {
        "HOME": str(home),
        "PYTHONPATH": str(REPO_ROOT),
        "WAVE_BASE_URL": model_server_process,
        "WAVE_API_KEY": "k",
        "WAVE_MODEL": "test-model",
        "TERM": "xterm-256color",
        "PATH": os.environ.get("PATH", ""),
        "PS1": "shell$ ",
    }
    assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    tmux.run(
        "new-session", "-d", "-s", tmux.session, "-x", "100", "-y", "30",
        f"env -i {assignments} bash --norc --noprofile -i",
    )  # fmt: skip
    tmux.wait_for_text("shell$")
    wave = f"{shlex.quote(sys.executable)} -m wave_tui --workdir {shlex.quote(str(project))}"
    tmux.run("send-keys", "-t", tmux.session, "-l", wave)
    tmux.run("send-keys", "-t", tmux.session, "Enter")
    tmux.wait_for_text("Message wave")
    tmux.run("send-keys", "-t", tmux.session, "C-z")
    tmux.wait_for(lambda: "Stopped" in tmux.screen(), "the shell's job report")
    assert "Message wave" not in tmux.screen()  # the shell has the terminal back
    # `fg` returns the job's exit code once it ends.
    tmux.run("send-keys", "-t", tmux.session, "-l", f"fg; echo $? > {exit_file}")
    tmux.run("send-keys", "-t", tmux.session, "Enter")
    tmux.wait_for_text("Message wave")
    tmux.run("send-keys", "-t", tmux.session, "-l", "/exit")
    tmux.run("send-keys", "-t", tmux.session, "Enter")
    tmux.wait_for(lambda: exit_file.exists() and exit_file.read_text().strip() != "", "exit")
    assert exit_file.read_text().strip() == "0"
