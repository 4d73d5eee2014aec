"""A real terminal check: `python -m wave_tui` in tmux against a standalone model server."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
REPLY = "Hello from the scripted model"

# The real terminal is part of what is tested: without tmux these fail (CI installs it).
assert shutil.which("tmux") is not None, (
    "tmux is needed for the terminal tests: apt-get install tmux"
)


@pytest.fixture
def model_server_process() -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.model_server", "--port", "0", "--reply", REPLY],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        assert line.startswith("READY "), line
        yield line.split(" ", 1)[1]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


class Tmux:
    def __init__(self) -> None:
        self.socket = f"wave-test-{uuid.uuid4().hex[:8]}"
        self.session = "wave"
        self.exit_file: Path | None = None  # where the app's exit code lands when it ends
        self.log_file: Path | None = None  # Textual's own log of the app (TEXTUAL_LOG)

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=check
        )

    def screen(self) -> str:
        result = self.run("capture-pane", "-p", "-t", self.session, check=False)
        return result.stdout if result.returncode == 0 else f"(no screen: {result.stderr.strip()})"

    def wait_for(self, predicate: Callable[[], bool], what: str, timeout: float = 45) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            time.sleep(0.1)
        ended = (
            self.exit_file.read_text().strip()
            if self.exit_file and self.exit_file.exists()
            else None
        )
        why = f" (the app ended with exit code {ended})" if ended is not None else ""
        pytest.fail(
            f"timed out waiting for {what}{why}; screen:\n{self.screen()}\n{self.log_tail()}"
        )

    def log_tail(self, lines: int = 40) -> str:
        """The keys, actions and errors at the end of the app's log: what it was doing."""
        if self.log_file is None or not self.log_file.exists():
            return "(no app log)"
        markers = ("Key(key=", "Paste(", "action", "Worker CANCELLED", "Error", "Traceback")
        kept = [
            line[:200]
            for line in self.log_file.read_text(errors="replace").splitlines()
            if any(marker in line for marker in markers)
        ]
        return "app log (keys, actions, errors):\n" + "\n".join(kept[-lines:])

    def wait_for_text(self, text: str, timeout: float = 45) -> None:
        self.wait_for(lambda: text in self.screen(), repr(text), timeout)


@pytest.fixture
def tmux() -> Iterator[Tmux]:
    session = Tmux()
    try:
        yield session
    finally:
        session.run("kill-server", check=False)


def start_wave(
    tmux: Tmux, base_url: str, tmp_path: Path, size: tuple[int, int], after: str = ""
) -> Path:
    """`wave` in a fresh HOME and project (one AGENTS.md item) inside tmux at `size`; returns
    the file its exit code lands in. `after`: shell commands run in the pane once it ended."""
    home = tmp_path / "home"
    project = tmp_path / "project"
    home.mkdir()
    project.mkdir()
    (project / "AGENTS.md").write_text("- Always run the linter\n", encoding="utf-8")
    exit_file = tmp_path / "exit-code"
    env = {
        "HOME": str(home),
        "PYTHONPATH": str(REPO_ROOT),
        "WAVE_BASE_URL": base_url,
        "WAVE_API_KEY": "k",
        "WAVE_MODEL": "test-model",
        "TERM": "xterm-256color",
        "TEXTUAL_LOG": str(tmp_path / "textual.log"),
        "PATH": os.environ.get("PATH", ""),
    }
    assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    command = (
        f"env -i {assignments} {shlex.quote(sys.executable)} -m wave_tui "
        f"--workdir {shlex.quote(str(project))}; echo $? > {shlex.quote(str(exit_file))}; {after}"
        "exec sleep 600"  # the pane stays: a failure shows what the app printed when it ended
    )
    width, height = size
    tmux.run("new-session", "-d", "-s", tmux.session, "-x", str(width), "-y", str(height), command)
    tmux.exit_file = exit_file
    tmux.log_file = tmp_path / "textual.log"
    return exit_file


@pytest.mark.req("UX1", "UX16", "UX17")
def test_wave_runs_in_a_real_terminal(
    tmux: Tmux, model_server_process: str, tmp_path: Path
) -> None:
    exit_file = start_wave(tmux, model_server_process, tmp_path, (120, 40))

    tmux.wait_for_text("Message wave")
    tmux.run("send-keys", "-t", tmux.session, "-l", "hi there")
    tmux.run("send-keys", "-t", tmux.session, "Enter")
    tmux.wait_for_text(REPLY)

    # UX1: a bracketed paste keeps every line
    tmux.run("set-buffer", "-b", "wave", "pasted one\npasted two\npasted three")
    tmux.run("paste-buffer", "-p", "-b", "wave", "-t", tmux.session)
    tmux.wait_for_text("pasted three")
    tmux.run("send-keys", "-t", tmux.session, "Enter")
    tmux.wait_for(lambda: "Message wave" in tmux.screen(), "the input to empty after sending")
    # UX17: Shift+Tab cycles the mode, shown in the status line
    tmux.run("send-keys", "-t", tmux.session, "BTab")
    tmux.wait_for_text("accept edits")
    tmux.run("send-keys", "-t", tmux.session, "BTab", "BTab")
    tmux.wait_for(lambda: "accept edits" not in tmux.screen(), "the mode back to default")
    # UX16: !cmd runs in the project; @path attaches a file
    tmux.run("send-keys", "-t", tmux.session, "-l", "!echo bang-$((20+22))")
    tmux.run("send-keys", "-t", tmux.session, "Enter")
    tmux.wait_for_text("bang-42")
    tmux.run("send-keys", "-t", tmux.session, "-l", "read @AGE")
    tmux.run("send-keys", "-t", tmux.session, "Tab")
    tmux.wait_for_text("read @AGENTS.md")
    tmux.run("send-keys", "-t", tmux.session, "Enter")

    tmux.wait_for(lambda: "working" not in tmux.screen(), "the turn to end")

    tmux.run("send-keys", "-t", tmux.session, "F2")
    tmux.wait_for_text("Project AGENTS.md")
    assert "Always run the linter" in tmux.screen()

    tmux.run("send-keys", "-t", tmux.session, "C-q")
    tmux.wait_for(exit_file.exists, "the app to end")
    assert exit_file.read_text().strip() == "0"


@pytest.mark.req("UX13")
def test_ux13_wave_at_80x24_keeps_f3_help_and_attachments_usable(
    tmux: Tmux, model_server_process: str, tmp_path: Path
) -> None:
    exit_file = start_wave(tmux, model_server_process, tmp_path, (80, 24))
    tmux.wait_for_text("Message wave")
    assert "f3 Settings" in tmux.screen()
    tmux.run("send-keys", "-t", tmux.session, "-l", "read @AGE")
    tmux.run("send-keys", "-t", tmux.session, "Tab")
    tmux.wait_for_text("read @AGENTS.md")
    tmux.run("send-keys", "-t", tmux.session, "Enter")
    tmux.wait_for_text(REPLY)
    assert "(attached: AGENTS.md)" in tmux.screen()
    assert "Always run the linter" not in tmux.screen()  # the file goes to the model only
    tmux.run("send-keys", "-t", tmux.session, "-l", "/help")
    tmux.run("send-keys", "-t", tmux.session, "Enter")
    tmux.wait_for_text("Keys:")
    tmux.run("send-keys", "-t", tmux.session, "F3")
    tmux.wait_for_text("Auto memory")
    tmux.run("send-keys", "-t", tmux.session, "C-q")
    tmux.wait_for(exit_file.exists, "the app to end")
    assert exit_file.read_text().strip() == "0"
