"""Ctrl+B in the app: while a Bash command runs in the foreground the footer offers
"Background"; the key moves the command to the background, its tool call answers with the task
id and the turn goes on; the command (a real process waiting on a file) finishes there."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets._footer import FooterKey

from tests.model_server import ModelServer, text, tool_call
from tests.tui.conftest import fixed_clock, server_env
from tests.tui.helpers import wait_until
from wave_tui.agent.service import AgentOptions
from wave_tui.session.factory import create_service
from wave_tui.tui.app import make_app


def footer_keys(pilot: Pilot[None]) -> list[str]:
    return [key.description for key in pilot.app.screen.query(FooterKey)]


@pytest.mark.req("SX9")
async def test_ctrl_b_moves_the_running_command_to_the_background(
    model_server: ModelServer, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")
    command = "echo started; while [ ! -e go ]; do sleep 0.05; done; echo finished"
    model_server.enqueue(tool_call("Bash", {"command": command}), text("the turn went on"))
    service = create_service(
        AgentOptions(
            workdir=project,
            environ=server_env(model_server),
            permission_mode="bypassPermissions",
        )
    )
    app = make_app(service.store, service, fixed_clock)
    app.animation_level = "none"
    async with app.run_test(size=(120, 32)) as pilot:
        assert "Background" not in footer_keys(pilot)
        await pilot.press(*"run it", "enter")
        await wait_until(pilot, lambda: "Background" in footer_keys(pilot))
        assert "Background" in footer_keys(pilot)
        await pilot.press("ctrl+b")
        await wait_until(pilot, lambda: not service.busy and service.background.tasks() != [])
        (task,) = service.background.tasks()
        assert (task.command, task.status) == (command, "running")
        tool_result = [m for m in service.conversation.messages if m.role == "tool"][-1]
        assert f"task id {task.id}" in tool_result.content
        assert service.conversation.messages[-1].content == "the turn went on"
        await wait_until(pilot, lambda: "Background" not in footer_keys(pilot))
        assert "Background" not in footer_keys(pilot)
        (project / "go").touch()
        await service.background.wait(task.id)
        assert service.background.get(task.id).status == "completed"  # type: ignore[union-attr]
        assert task.output_file.read_text() == "started\nfinished\n"
