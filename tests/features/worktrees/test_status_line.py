"""The status line names the worktree the session works in (Textual Pilot, a real session)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text, tool_call
from tests.tui.conftest import server_env
from tests.tui.helpers import settle, wait_until
from wave_tui.session.factory import create_service
from wave_tui.session.types import AgentOptions
from wave_tui.tui.app import WaveApp, make_app
from wave_tui.tui.widgets.start_panel import StartPanel
from wave_tui.tui.widgets.status_line import StatusLine


def _repo_and_app(project: Path, model_server: ModelServer, *files: str) -> WaveApp:
    """`project` as a git repository with one commit (holding `files`), and the app over a
    session that starts in worktree `ui`."""
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=project, check=True)
    subprocess.run(["git", "add", *files], cwd=project, check=True)
    subprocess.run(
        ["git", "-c", "user.email=a@b", "-c", "user.name=n", "commit", "-q", "--allow-empty",
         "-m", "init"],
        cwd=project, check=True,
    )  # fmt: skip
    env = {**server_env(model_server), "WAVE_DISABLE_AUTO_MEMORY": "1"}
    service = create_service(
        AgentOptions(
            workdir=project, environ=env, worktree="ui", permission_mode="bypassPermissions"
        )
    )
    app = make_app(service.store, service)
    app.animation_level = "none"
    return app


@pytest.mark.req("WT1")
@pytest.mark.req("FH2")
async def test_the_status_line_shows_the_worktree_and_drops_it_on_exit(
    model_server: ModelServer, project: Path
) -> None:
    app = _repo_and_app(project, model_server)
    model_server.enqueue(text("in it"))
    model_server.enqueue(tool_call("ExitWorktree", {"action": "keep"}), text("out"))

    def status() -> str:
        return str(app.chat_screen.query_one("#status", StatusLine).render())

    async with app.run_test(size=(120, 32)) as pilot:
        # In force from the start, before any turn (FH2).
        await wait_until(pilot, lambda: "⎇ ui" in status())
        assert "⎇ ui" in status() and not model_server.requests
        await pilot.press("h", "i", "enter")
        await settle(pilot)
        await pilot.press("o", "u", "t", "enter")
        await wait_until(pilot, lambda: "⎇" not in status() and len(model_server.requests) == 3)
        await settle(pilot)
    assert (project / ".wave" / "worktrees" / "ui").is_dir()


@pytest.mark.req("WT1")
async def test_an_at_path_after_entering_a_worktree_attaches_the_worktrees_file(
    model_server: ModelServer, project: Path
) -> None:
    """`@path` names a file where the session works: once in a worktree, the worktree's copy,
    not the main checkout's (completion lists the worktree's files too)."""
    (project / "notes.txt").write_text("the main checkout's notes\n")
    app = _repo_and_app(project, model_server, "notes.txt")
    async with app.run_test(size=(120, 32)) as pilot:
        await pilot.press(*"hi", "enter")
        await settle(pilot)
        tree = project / ".wave" / "worktrees" / "ui"
        (tree / "notes.txt").write_text("the worktree's notes\n")
        (tree / "only_here.txt").write_text("x\n")
        assert app.session.input.complete_path("see @only_h") is not None
        await pilot.press(*"read @notes.txt", "enter")
        await settle(pilot)
    sent = str(model_server.requests[-1].body["messages"][-1]["content"])
    assert "the worktree's notes" in sent and "the main checkout's notes" not in sent


@pytest.mark.req("FH2")
async def test_a_first_shell_command_and_the_header_are_in_the_worktree_before_any_turn(
    model_server: ModelServer, project: Path
) -> None:
    """`wave --worktree ui` then `!pwd` as the first thing typed: it runs in the worktree, and
    the start panel names it; no model request was needed to get there."""
    app = _repo_and_app(project, model_server)
    tree = (project / ".wave" / "worktrees" / "ui").resolve()

    def panel() -> str:
        return str(app.chat_screen.query_one("#start-panel", StartPanel).render())

    async with app.run_test(size=(120, 32)) as pilot:
        await wait_until(pilot, lambda: "⎇ ui" in panel())
        assert "⎇ ui" in panel()
        await pilot.press(*"!pwd", "enter")
        await settle(pilot)
        await wait_until(pilot, lambda: bool(app.session.messages()))
    (shell,) = app.session.messages()
    assert f"\n{tree}\n" in str(shell.content)
    assert not model_server.requests
